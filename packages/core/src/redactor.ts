/** A function that returns a deep, masked copy of a value. */
export type Redactor = (value: unknown) => unknown;

/**
 * Builds a redactor that masks every object field (and string `Map` key) whose name matches one of `keys`,
 * at any depth. The input is never changed. Dates, bytes and other non-plain values are kept as they are.
 *
 * @param keys field names, or RegExps tested against field names
 * @param mask what a masked value becomes @default '[redacted]'
 * @example
 * const redact = createRedactor(['password', /token$/i]);
 * redact({ user: { password: 'x', apiToken: 'y', name: 'a' } });
 * // { user: { password: '[redacted]', apiToken: '[redacted]', name: 'a' } }
 */
export function createRedactor(keys: ReadonlyArray<string | RegExp>, mask: unknown = '[redacted]'): Redactor {
  const names = new Set(keys.filter((k): k is string => typeof k === 'string'));
  const patterns = keys.filter((k): k is RegExp => k instanceof RegExp);
  const matches = (key: string): boolean => {
    if (names.has(key)) return true;
    for (const p of patterns) {
      p.lastIndex = 0;
      if (p.test(key)) return true;
    }
    return false;
  };

  const copy = (value: unknown, seen: Map<object, unknown>): unknown => {
    if (typeof value !== 'object' || value === null) return value;
    const known = seen.get(value);
    if (known !== undefined) return known;
    if (Array.isArray(value)) {
      const out: unknown[] = [];
      seen.set(value, out);
      for (const item of value) out.push(copy(item, seen));
      return out;
    }
    if (value instanceof Map) {
      const out = new Map();
      seen.set(value, out);
      for (const [k, v] of value) out.set(k, typeof k === 'string' && matches(k) ? mask : copy(v, seen));
      return out;
    }
    if (value instanceof Set) {
      const out = new Set();
      seen.set(value, out);
      for (const v of value) out.add(copy(v, seen));
      return out;
    }
    const proto = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) return value;
    const out: Record<string, unknown> = {};
    seen.set(value, out);
    for (const [k, v] of Object.entries(value)) {
      Object.defineProperty(out, k, {
        value: matches(k) ? mask : copy(v, seen),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return out;
  };

  return (value) => copy(value, new Map());
}
