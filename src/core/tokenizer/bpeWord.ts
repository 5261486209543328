/**
 * Byte-pair encoding of one pre-token, for byte-level BPE vocabularies (Qwen2/3, Llama-3): the
 * same pieces as the reference implementations (lowest-ranked pair first, leftmost on ties),
 * without their per-pair `JSON.stringify` keys and node objects. Symbols are token ids and pairs
 * are looked up in an open-addressing table of id pairs (no key string per lookup); each merge
 * re-ranks only the two pairs next to it. A vocabulary the id form cannot mirror exactly (a merge
 * naming a piece it lacks, two pieces sharing an id) is encoded by pieces instead: keys `"a b"`,
 * unambiguous because byte-level symbols hold no space.
 */
export interface BpeWordModel {
  /** Pieces of `word` (a string of byte-level symbols), as token ids. */
  encode(word: string): number[];
  /**
   * Pieces of a word given as bytes, each byte standing for the symbol `symbols[byte]` (the
   * byte-level alphabet) — `encode` of the word those symbols spell, without building it.
   */
  encodeBytes(bytes: Uint8Array): number[];
}

/** How many encoded words are kept (then the cache starts over: memory stays bounded). */
const CACHE_LIMIT = 100_000;
const NO_RANK = 0x7fffffff;

/**
 * Merges as an id-pair table: (left, right) → (rank, merged id). The merged id is looked up when
 * a merge first applies (-1 until then): most merges never do in one run.
 */
interface PairTable {
  readonly mask: number;
  readonly left: Int32Array;
  readonly right: Int32Array;
  readonly rank: Int32Array;
  readonly merged: Int32Array;
}

const slotOf = (mask: number, a: number, b: number) =>
  (Math.imul(a, 0x9e3779b1) ^ Math.imul(b + 0x632be5ab, 0x85ebca77)) & mask;

/** The merges as an id-pair table, or undefined when ids cannot mirror the pieces exactly. */
function pairTable(
  vocab: ReadonlyMap<string, number>,
  merges: readonly (readonly [string, string] | readonly string[])[],
): PairTable | undefined {
  // Pieces and ids must correspond one to one, or merging ids is not merging pieces.
  let maxId = -1;
  for (const id of vocab.values()) {
    if (!Number.isInteger(id) || id < 0) return undefined;
    if (id > maxId) maxId = id;
  }
  const seen = new Uint8Array(maxId + 1);
  for (const id of vocab.values()) {
    if (seen[id] === 1) return undefined;
    seen[id] = 1;
  }
  let size = 1024;
  while (size < 2 * merges.length) size *= 2;
  const mask = size - 1;
  const table: PairTable = {
    mask,
    left: new Int32Array(size).fill(-1),
    right: new Int32Array(size),
    rank: new Int32Array(size),
    merged: new Int32Array(size).fill(-1),
  };
  for (let i = 0; i < merges.length; i++) {
    const pair = merges[i] as readonly string[];
    const a = vocab.get(pair[0] ?? "");
    const b = vocab.get(pair[1] ?? "");
    if (a === undefined || b === undefined || pair.length !== 2) return undefined;
    let s = slotOf(mask, a, b);
    for (;;) {
      const l = table.left[s] as number;
      if (l === -1 || (l === a && table.right[s] === b)) break;
      s = (s + 1) & mask;
    }
    // A pair listed twice keeps its last rank, as the piece keys (a Map) do.
    table.left[s] = a;
    table.right[s] = b;
    table.rank[s] = i;
  }
  return table;
}

/** Table slot of the pair (a, b), or -1. */
function findPair(t: PairTable, a: number, b: number): number {
  const { mask, left, right } = t;
  for (let s = slotOf(mask, a, b); ; s = (s + 1) & mask) {
    const l = left[s] as number;
    if (l === -1) return -1;
    if (l === a && right[s] === b) return s;
  }
}

/** Working arrays of one model's merges, grown as words need (one word at a time). */
interface Scratch {
  parts: Int32Array;
  ranks: Int32Array;
  slots: Int32Array;
}

function scratchFor(scratch: Scratch, n: number): Scratch {
  if (scratch.parts.length < n) {
    const size = Math.max(n, 2 * scratch.parts.length);
    scratch.parts = new Int32Array(size);
    scratch.ranks = new Int32Array(size);
    scratch.slots = new Int32Array(size);
  }
  return scratch;
}

/**
 * BPE over the symbol ids `scratch.parts[0, n)`, in place; returns the ids, or undefined when a
 * merge's result is no piece of the vocabulary (the piece form then encodes the word).
 */
function mergeIds(
  t: PairTable,
  scratch: Scratch,
  n: number,
  resultOf: (rank: number) => number | undefined,
): number[] | undefined {
  const { parts, ranks, slots } = scratch;
  const { rank, merged } = t;
  for (let i = 0; i < n - 1; i++) {
    const s = findPair(t, parts[i] as number, parts[i + 1] as number);
    slots[i] = s;
    ranks[i] = s < 0 ? NO_RANK : (rank[s] as number);
  }
  let pairs = n - 1;
  for (;;) {
    let best = NO_RANK;
    let at = -1;
    for (let i = 0; i < pairs; i++) {
      if ((ranks[i] as number) < best) {
        best = ranks[i] as number;
        at = i;
      }
    }
    if (at < 0) break;
    // The leftmost occurrence of the best pair; the next one is found by the next round.
    const slot = slots[at] as number;
    let m = merged[slot] as number;
    if (m < 0) {
      const found = resultOf(rank[slot] as number);
      if (found === undefined) return undefined;
      m = found;
      merged[slot] = m;
    }
    parts[at] = m;
    for (let i = at + 1; i < pairs; i++) {
      parts[i] = parts[i + 1] as number;
      ranks[i - 1] = ranks[i] as number;
      slots[i - 1] = slots[i] as number;
    }
    pairs -= 1;
    // Only the pairs next to the merge change.
    for (let i = at > 0 ? at - 1 : at; i <= at && i < pairs; i++) {
      const s = findPair(t, parts[i] as number, parts[i + 1] as number);
      slots[i] = s;
      ranks[i] = s < 0 ? NO_RANK : (rank[s] as number);
    }
  }
  const ids: number[] = new Array(pairs + 1);
  for (let i = 0; i <= pairs; i++) ids[i] = parts[i] as number;
  return ids;
}

/**
 * A BPE model from the vocabulary (piece → id) and merges (in rank order, `[a, b]` pairs).
 * `ignoreMerges`: a word that is a piece of the vocabulary is that piece (tokenizer.json's
 * `model.ignore_merges`, set by Llama-3). `symbols`: the byte-level alphabet `encodeBytes` spells
 * bytes with. The merge tables are built on first use.
 */
export function createBpeWordModel(
  vocab: ReadonlyMap<string, number>,
  merges: readonly (readonly [string, string] | readonly string[])[],
  options: {
    readonly ignoreMerges: boolean;
    readonly onUnknown: (piece: string) => never;
    readonly symbols?: readonly string[];
  },
): BpeWordModel {
  let table: PairTable | null | undefined;
  let ranks: Map<string, number> | undefined;
  let cache = new Map<string, number[]>();
  const scratch: Scratch = {
    parts: new Int32Array(256),
    ranks: new Int32Array(256),
    slots: new Int32Array(256),
  };
  /** Id of each single-UTF-16-unit symbol (-1: none, -2: not looked up). */
  const unitIds = new Int32Array(0x10000).fill(-2);
  let byteIds: Int32Array | undefined;
  const tableOf = () => {
    if (table === undefined) table = pairTable(vocab, merges) ?? null;
    return table;
  };
  const rankMap = () => {
    if (ranks === undefined) {
      ranks = new Map();
      for (let i = 0; i < merges.length; i++) {
        const pair = merges[i] as readonly string[];
        ranks.set(`${pair[0]} ${pair[1]}`, i);
      }
    }
    return ranks;
  };
  const idOf = (piece: string): number => vocab.get(piece) ?? options.onUnknown(piece);
  /** The id of what merge `rank` makes, when the vocabulary holds it. */
  const resultOf = (rank: number): number | undefined => {
    const pair = merges[rank] as readonly string[];
    return vocab.get(`${pair[0]}${pair[1]}`);
  };

  /** The reference algorithm on piece strings (vocabularies the id table cannot mirror). */
  const byPieces = (word: string): number[] => {
    const r = rankMap();
    const pieces = Array.from(word);
    const rankAt = (i: number) => r.get(`${pieces[i]} ${pieces[i + 1]}`) ?? NO_RANK;
    const pairRanks: number[] = [];
    for (let i = 0; i < pieces.length - 1; i++) pairRanks.push(rankAt(i));
    for (;;) {
      let best = NO_RANK;
      let at = -1;
      for (let i = 0; i < pairRanks.length; i++) {
        if ((pairRanks[i] as number) < best) {
          best = pairRanks[i] as number;
          at = i;
        }
      }
      if (at < 0) break;
      pieces.splice(at, 2, `${pieces[at]}${pieces[at + 1]}`);
      pairRanks.splice(at, 1);
      if (at < pairRanks.length) pairRanks[at] = rankAt(at);
      if (at > 0) pairRanks[at - 1] = rankAt(at - 1);
    }
    return pieces.map(idOf);
  };

  /** BPE of a word of single-unit symbols by id, or undefined when a symbol has no id. */
  const byIds = (word: string, t: PairTable): number[] | undefined => {
    const n = word.length;
    const p = scratchFor(scratch, n).parts;
    for (let i = 0; i < n; i++) {
      const unit = word.charCodeAt(i);
      let id = unitIds[unit] as number;
      if (id === -2) {
        // A lone surrogate half is no symbol: astral symbols take the piece path.
        id = unit >= 0xd800 && unit <= 0xdfff ? -1 : (vocab.get(word[i] as string) ?? -1);
        unitIds[unit] = id;
      }
      if (id < 0) return undefined;
      p[i] = id;
    }
    return mergeIds(t, scratch, n, resultOf);
  };

  const encode = (word: string): number[] => {
    const cached = cache.get(word);
    if (cached !== undefined) return cached;
    const whole = options.ignoreMerges ? vocab.get(word) : undefined;
    let ids: number[] | undefined;
    if (whole !== undefined) ids = [whole];
    else {
      const t = tableOf();
      ids = (t && byIds(word, t)) ?? byPieces(word);
    }
    if (cache.size >= CACHE_LIMIT) cache = new Map();
    cache.set(word, ids);
    return ids;
  };

  const spell = (bytes: Uint8Array, symbols: readonly string[]) => {
    let word = "";
    for (const b of bytes) word += symbols[b];
    return word;
  };

  return {
    encode,
    encodeBytes(bytes) {
      const { symbols } = options;
      if (!symbols) throw new Error("encodeBytes needs the byte-level symbols");
      const t = tableOf();
      if (!t) return encode(spell(bytes, symbols));
      if (options.ignoreMerges) {
        const whole = vocab.get(spell(bytes, symbols));
        if (whole !== undefined) return [whole];
      }
      if (!byteIds) {
        byteIds = new Int32Array(256);
        for (let b = 0; b < 256; b++) byteIds[b] = vocab.get(symbols[b] ?? "") ?? -1;
      }
      const n = bytes.length;
      const p = scratchFor(scratch, n).parts;
      for (let i = 0; i < n; i++) {
        const id = byteIds[bytes[i] as number] as number;
        if (id < 0) return encode(spell(bytes, symbols));
        p[i] = id;
      }
      return mergeIds(t, scratch, n, resultOf) ?? encode(spell(bytes, symbols));
    },
  };
}
