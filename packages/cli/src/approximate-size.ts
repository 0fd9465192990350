/**
 * Roughly how many bytes `value` takes in memory, counting strings, numbers, bytes and structure, and
 * stopping as soon as the count passes `cap` (so sizing a huge state costs no more than sizing `cap` bytes).
 * Good enough to decide how many checkpoints one page may hold; not an exact measure.
 */
export function approximateSize(value: unknown, cap: number): number {
  let size = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0 && size <= cap) {
    const v = stack.pop();
    if (typeof v === 'string') size += 16 + v.length;
    else if (typeof v !== 'object' || v === null) size += 8;
    else if (ArrayBuffer.isView(v)) size += 32 + v.byteLength;
    else if (v instanceof Date) size += 32;
    else if (v instanceof Map) {
      size += 32;
      for (const [k, item] of v) stack.push(k, item);
    } else if (v instanceof Set || Array.isArray(v)) {
      size += 32;
      for (const item of v) stack.push(item);
    } else {
      size += 32;
      for (const [k, item] of Object.entries(v)) stack.push(k, item);
    }
  }
  return size;
}
