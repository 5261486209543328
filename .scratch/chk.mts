import { readLines } from "../server/files/readLines";
for (const f of process.argv.slice(2)) {
  let n = 0;
  const t = Date.now();
  try { for await (const l of readLines(f)) n++; console.log(f, "ok", n, Date.now() - t); } catch (e) { console.log(f, "err", String(e).slice(0, 250)); }
}
