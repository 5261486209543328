/*
 * CRC-32 (IEEE 802.3, the ZIP checksum) of a byte range, table-driven. torch.save records each
 * entry's CRC in the ZIP directory; checking it is how a flipped or overwritten byte in a dump
 * becomes an error instead of a silently different token id or logprob.
 */

const TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

/** The CRC-32 of `bytes`, as an unsigned 32-bit number. */
export function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (let k = 0; k < bytes.length; k++) {
    c = (TABLE[(c ^ (bytes[k] as number)) & 0xff] as number) ^ (c >>> 8);
  }
  return (c ^ 0xffffffff) >>> 0;
}
