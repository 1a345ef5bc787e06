// Redis Cluster's key -> hash slot mapping (CRC16-XMODEM of the key's hash tag, mod 16384),
// so the limiter can batch keys of one slot and find the node serving a key in the
// client's slot table without asking the client to route anything.

const TABLE = (() => {
  const table = new Uint16Array(256);
  for (let byte = 0; byte < 256; byte++) {
    let crc = byte << 8;
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
    table[byte] = crc;
  }
  return table;
})();

/** The number of hash slots of a Redis Cluster. */
export const HASH_SLOTS = 16384;

/**
 * The hash slot of `key` (0..16383), a string sent as UTF-8 or the bytes sent: only the part
 * inside the first non-empty `{...}` counts when there is one, so `{tenant}:a` and
 * `{tenant}:b` share a slot.
 */
export function hashSlot(key: string | Uint8Array): number {
  const bytes = hashedPart(typeof key === 'string' ? Buffer.from(key, 'utf8') : key);
  let crc = 0;
  for (const byte of bytes) crc = ((crc << 8) & 0xffff) ^ (TABLE[((crc >> 8) ^ byte) & 0xff] as number);
  return crc % HASH_SLOTS;
}

/** `{` and `}` are one byte each in UTF-8 (and WTF-8), never part of another character's bytes. */
function hashedPart(key: Uint8Array): Uint8Array {
  const open = key.indexOf(0x7b);
  if (open < 0) return key;
  const close = key.indexOf(0x7d, open + 1);
  return close > open + 1 ? key.subarray(open + 1, close) : key;
}
