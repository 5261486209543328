// A drift corpus from diverse REAL text, not templates: prose (README/markdown files), code
// (JavaScript/TypeScript sources) and JSON (package manifests, data files), all read from the
// packages installed in node_modules/ — real text every clone has, no download. Chosen and cut
// deterministically (sorted file lists, a seeded generator), tokenized with the native tokenizer
// as slime Sample lines (qwen3 chat turns: user = one chunk, assistant = another), a share of the
// assistant turns carrying an E1 drift (a token split into two non-canonical pieces). With `hard`
// (the default of the benches) the rows are made hard for the fast path (bench/hardText.ts): CJK,
// emoji, long whitespace and digit runs mixed into the real text, many short rows and a few rows
// of over 100,000 tokens.
import { createWriteStream, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import type { Tokenizer as NativeTokenizer } from "tokenizers";
import { seededRandom } from "../src/core/random";
import { hardChunk } from "./hardText";

const KINDS = {
  prose: [".md", ".markdown", ".txt"],
  code: [".js", ".mjs", ".cjs", ".ts"],
  json: [".json"],
} as const;
type Kind = keyof typeof KINDS;

/** Every file under `dir` of the kinds, sorted; `.d.ts` and minified bundles skipped. */
function listFiles(dir: string, out: Map<Kind, string[]>): void {
  let entries: string[];
  try {
    entries = readdirSync(dir).sort();
  } catch {
    return;
  }
  for (const name of entries) {
    if (name.startsWith(".")) continue;
    const path = join(dir, name);
    let info: ReturnType<typeof statSync>;
    try {
      info = statSync(path);
    } catch {
      continue;
    }
    if (info.isDirectory()) listFiles(path, out);
    else if (info.size > 200 && info.size < 400_000 && !/\.(d\.ts|min\.js)$/.test(name)) {
      for (const kind of Object.keys(KINDS) as Kind[]) {
        if (KINDS[kind].some((ext) => name.endsWith(ext))) out.get(kind)?.push(path);
      }
    }
  }
}

/** Chunks of 200–4,000 characters, cut at line ends, from the files of one kind, in order. */
function* chunksOf(files: readonly string[], r: () => number): Generator<string> {
  for (const file of files) {
    const lines = readFileSync(file, "utf8").split("\n");
    // Minified or generated text (one huge line) is not what people write.
    if (lines.some((l) => l.length > 2_000)) continue;
    let at = 0;
    while (at < lines.length) {
      const want = 200 + Math.floor(r() * 3_800);
      let text = "";
      while (at < lines.length && text.length < want) text += `${lines[at++]}\n`;
      if (text.trim().length > 0) yield text;
    }
  }
}

const QWEN_USER = (text: string) => `<|im_start|>user\n${text}<|im_end|>\n<|im_start|>assistant\n`;

/**
 * Writes a slime JSONL corpus of at least `targetBytes` of text to `path`; resolves to its
 * trajectory count, text size and injected drifts.
 */
export async function writeRealTextCorpus(
  path: string,
  native: NativeTokenizer,
  options: {
    readonly targetBytes: number;
    readonly seed: number;
    readonly driftRate: number;
    readonly hard?: boolean;
  },
): Promise<CorpusMade> {
  const r = seededRandom(options.seed);
  const files = new Map<Kind, string[]>([
    ["prose", []],
    ["code", []],
    ["json", []],
  ]);
  listFiles(join(import.meta.dirname, "..", "node_modules"), files);
  const sources = [...files.values()].map((list) => chunksOf(list, r));
  const imEnd = native.tokenToId("<|im_end|>") ?? 0;
  const out = createWriteStream(path);
  let textBytes = 0;
  let trajectories = 0;
  let injected = 0;
  let fileBytes = 0;
  let turn = 0;
  // Mixed kinds in every batch: prose, code and JSON in turn, user and assistant alike.
  const next = () => {
    for (let tries = 0; tries < sources.length; tries++) {
      const got = sources[turn++ % sources.length]?.next();
      if (got && !got.done) return got.value;
    }
    throw new Error("node_modules holds too little text for the corpus");
  };
  const mix = options.hard ? hardMix(r, next) : () => next();
  let batchNo = 0;
  let longRows = 0;
  let shortRows = 0;
  while (textBytes < options.targetBytes) {
    const pairs: [string, string][] = [];
    for (let k = 0; k < 256; k++) {
      const isLong = options.hard === true && k === 0 && batchNo % 4 === 1 && longRows < LONG_ROWS;
      if (isLong) longRows += 1;
      // A third of the hard corpus's rows are short: a few words asked, a few answered.
      const isShort = options.hard === true && !isLong && r() < 0.34;
      const user = isShort ? shortText(r, next) : mix();
      const assistant = isLong
        ? await longText(native, r, next)
        : isShort
          ? shortText(r, next)
          : mix();
      if (user.length + assistant.length < 300) shortRows += 1;
      pairs.push([QWEN_USER(user), assistant]);
    }
    batchNo += 1;
    const encoded = await native.encodeBatch(
      pairs.flat().map((t) => t),
      { addSpecialTokens: false },
    );
    for (let k = 0; k < pairs.length; k++) {
      const prompt = encoded[2 * k]?.getIds() ?? [];
      let response = [...(encoded[2 * k + 1]?.getIds() ?? []), imEnd];
      if (r() < options.driftRate) {
        const split = await splitOneToken(native, response, r);
        if (split) {
          response = split;
          injected += 1;
        }
      }
      const line = JSON.stringify({
        group_index: trajectories,
        tokens: [...prompt, ...response],
        response_length: response.length,
        loss_mask: response.map(() => 1),
        status: "completed",
        reward: 1,
      });
      fileBytes += line.length + 1;
      if (!out.write(`${line}\n`))
        await new Promise<void>((done) => out.once("drain", () => done()));
      trajectories += 1;
      textBytes += Buffer.byteLength(pairs[k]?.[0] ?? "") + Buffer.byteLength(pairs[k]?.[1] ?? "");
    }
  }
  await new Promise<void>((done, fail) =>
    out.end((error?: Error | null) => (error ? fail(error) : done())),
  );
  return { trajectories, textBytes, injected, fileBytes, longRows, shortRows };
}

export interface CorpusMade {
  readonly trajectories: number;
  readonly textBytes: number;
  readonly injected: number;
  readonly fileBytes: number;
  /** Rows of over LONG_TOKENS tokens. */
  readonly longRows: number;
  /** Rows of under 300 characters of text. */
  readonly shortRows: number;
}

const LONG_ROWS = 3;
const LONG_TOKENS = 100_000;

/** The hard corpus's long turns: half hard text (CJK, emoji, whitespace and digit runs mixed
 * into real text), half real text as it is. */
function hardMix(r: () => number, next: () => string): () => string {
  return () => (r() < 0.5 ? hardChunk(r, 200 + Math.floor(r() * 3_800), next) : next());
}

/** A short turn: 5–120 characters of hard or real text. */
function shortText(r: () => number, next: () => string): string {
  return hardChunk(r, 5 + Math.floor(r() * 115), next).slice(0, 120);
}

/** Text of over LONG_TOKENS tokens: hard chunks and real text until the encoder says so. */
async function longText(
  native: NativeTokenizer,
  r: () => number,
  next: () => string,
): Promise<string> {
  let text = "";
  for (;;) {
    while (text.length < 600_000) text += hardChunk(r, 4_000, next);
    const ids = (await native.encode(text, null, { addSpecialTokens: false })).getIds();
    if (ids.length > LONG_TOKENS) return text;
  }
}

/** E1: one multi-character token replaced by the tokens of its two halves (same text). */
async function splitOneToken(
  native: NativeTokenizer,
  ids: readonly number[],
  r: () => number,
): Promise<number[] | undefined> {
  for (let tries = 0; tries < 20; tries++) {
    const at = Math.floor(r() * Math.max(1, ids.length - 1));
    const id = ids[at];
    if (id === undefined) continue;
    const text = await native.decode([id], false);
    if (text.length < 3 || !/^[\x20-\x7e]+$/.test(text)) continue;
    const cut = 1 + Math.floor(r() * (text.length - 1));
    const [a, b] = await Promise.all(
      [text.slice(0, cut), text.slice(cut)].map(async (t) =>
        (await native.encode(t, null, { addSpecialTokens: false })).getIds(),
      ),
    );
    if (a?.length === 1 && b?.length === 1)
      return [...ids.slice(0, at), ...a, ...b, ...ids.slice(at + 1)];
  }
  return undefined;
}

/** The benches' corpus is the hard one unless DRIFT_CORPUS=real asks for real text only. */
export const isHardCorpus = (): boolean => process.env.DRIFT_CORPUS !== "real";

export function describeCorpus(made: CorpusMade): string {
  return (
    `${made.trajectories} trajectories (${made.shortRows} short, ${made.longRows} of over ` +
    `${LONG_TOKENS.toLocaleString("en")} tokens), ${(made.textBytes / 1e6).toFixed(1)} MB of ` +
    `${isHardCorpus() ? "hard text (CJK, emoji, whitespace and digit runs mixed into real prose, code, JSON)" : "real text (prose, code, JSON from node_modules)"}, ` +
    `${(made.fileBytes / 1e6).toFixed(1)} MB of slime JSONL, ${made.injected} injected E1 splits`
  );
}
