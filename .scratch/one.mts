import { readFileSync, writeFileSync } from "node:fs";
import { readLines } from "../server/files/readLines";
const [src, seedS, out] = process.argv.slice(2);
const bytes = new Uint8Array(readFileSync(src));
let a = Number(seedS) >>> 0;
const rnd = () => { a = (a + 0x6d2b79f5) >>> 0; let t = a; t = Math.imul(t ^ (t >>> 15), t | 1); t ^= t + Math.imul(t ^ (t >>> 7), t | 61); return ((t ^ (t >>> 14)) >>> 0) / 4294967296; };
const at = Math.floor(rnd() * bytes.length);
const v = Math.floor(rnd() * 256);
bytes[at] = v;
writeFileSync(out, bytes);
let n = 0;
try { for await (const l of readLines(out)) n++; console.log("ok", at, v, n); } catch (e) { console.log("err", at, v, String(e).slice(0,150)); }
