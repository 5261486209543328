// The native baseline of the drift benchmarks, as a whole process: read the JSONL, parse it,
// `decodeBatch` every trajectory's token ids with the native HF tokenizer (Rust), `encodeBatch` the
// texts back, compare. Plain JavaScript so `node` runs it without a TypeScript loader's start-up.
// Usage: node bench/nativeDriftCheckRows.mjs FILE TOKENIZER_JSON
// Prints one JSON line: { trajectories, drifted: [row index of each drifted trajectory], phases }
// (phases: ms spent loading the tokenizer, reading + parsing, decoding, encoding, comparing).
import { readFileSync } from "node:fs";
import { Tokenizer } from "tokenizers";

const [file, tokenizerJson] = process.argv.slice(2);
if (file === undefined || tokenizerJson === undefined) {
  console.error("usage: node bench/nativeDriftCheckRows.mjs FILE TOKENIZER_JSON");
  process.exit(2);
}

/** Each trajectory's recorded token ids, one per non-empty line (rollout-lens/v1 `token_ids`, slime `tokens`). */
function readIds(path) {
  const ids = [];
  const lines = readFileSync(path, "utf8").split("\n");
  for (const [n, line] of lines.entries()) {
    if (line === "") continue;
    const row = JSON.parse(line);
    const tokens = row.token_ids ?? row.tokens;
    if (!Array.isArray(tokens)) throw new Error(`${path}:${n + 1}: no token_ids or tokens array`);
    ids.push(tokens);
  }
  return ids;
}

const sameIds = (a, b) => a.length === b.length && a.every((x, k) => x === b[k]);

const phases = {};
let mark = performance.now();
const lap = (name) => {
  const now = performance.now();
  phases[name] = Math.round(now - mark);
  mark = now;
};
const native = Tokenizer.fromFile(tokenizerJson);
lap("tokenizer");
const ids = readIds(file);
lap("readParse");
const texts = await native.decodeBatch(ids, false);
lap("decode");
const encoded = await native.encodeBatch(texts, { addSpecialTokens: false });
lap("encode");
const drifted = [];
for (const [i, e] of encoded.entries()) if (!sameIds(e.getIds(), ids[i])) drifted.push(i);
lap("compare");
console.log(JSON.stringify({ trajectories: ids.length, drifted, phases }));
