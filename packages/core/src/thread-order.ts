/**
 * Compares two thread ids by Unicode code point — the order of their UTF-8 bytes, which is what
 * SQLite's BINARY collation, Postgres' "C" collation and Redis' lexicographic ranges use.
 * Plain `<` on JS strings compares UTF-16 code units and puts astral characters before U+E000–U+FFFF.
 */
export function compareThreadIds(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    // Surrogates (U+D800–U+DFFF) encode code points above U+FFFF, so they sort after every other unit.
    const xs = x >= 0xd800 && x <= 0xdfff;
    const ys = y >= 0xd800 && y <= 0xdfff;
    if (xs !== ys) return xs ? 1 : -1;
    return x - y;
  }
  return a.length - b.length;
}
