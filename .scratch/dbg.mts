import { readFileSync } from "node:fs";
import { parquetMetadata } from "hyparquet";
import { parquetHeader } from "hyparquet/src/column.js";
const buf = readFileSync(process.argv[2]);
const ab = buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength);
const md = parquetMetadata(ab);
for (const [g, rg] of md.row_groups.entries()) for (const c of rg.columns) {
  const m = c.meta_data!; const start = Number(m.dictionary_page_offset || m.data_page_offset);
  const reader = { view: new DataView(ab, start, Number(m.total_compressed_size)), offset: 0 };
  try { const h = parquetHeader(reader); console.log(g, m.path_in_schema.join("."), start, JSON.stringify(h, (k, v) => typeof v === "bigint" ? String(v) : v)); } catch (e) { console.log(g, m.path_in_schema.join("."), "ERR", String(e)); }
}
