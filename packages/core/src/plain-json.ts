/** A value `JSON.stringify` writes as is. */
export type PlainJson = null | boolean | number | string | PlainJson[] | { [key: string]: PlainJson };

function base64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
}

function convert(value: unknown, ancestors: Set<object>): PlainJson | undefined {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      if (Number.isFinite(value)) return value === 0 ? 0 : value; // -0 becomes 0
      return String(value); // "NaN", "Infinity", "-Infinity"
    case 'bigint':
      return value.toString();
    case 'undefined':
    case 'function':
    case 'symbol':
      return undefined;
  }
  if (value === null) return null;
  const obj = value as object;
  if (obj instanceof Date) return Number.isNaN(obj.getTime()) ? null : obj.toISOString();
  if (obj instanceof Uint8Array) return base64(obj);
  if (ancestors.has(obj)) throw new TypeError('toPlainJson: the value contains itself (a cycle)');
  ancestors.add(obj);
  try {
    if (Array.isArray(obj) || obj instanceof Set) {
      return Array.from(obj as Iterable<unknown>, (item) => convert(item, ancestors) ?? null);
    }
    if (obj instanceof Map) {
      return Array.from(obj, ([k, v]) => [convert(k, ancestors) ?? null, convert(v, ancestors) ?? null]);
    }
    const out: { [key: string]: PlainJson } = {};
    for (const [key, item] of Object.entries(obj)) {
      const converted = convert(item, ancestors);
      if (converted === undefined) continue;
      // `__proto__` stays an ordinary field instead of changing the prototype (the slow path, for it only).
      if (key === '__proto__') {
        Object.defineProperty(out, key, {
          value: converted,
          enumerable: true,
          writable: true,
          configurable: true,
        });
      } else out[key] = converted;
    }
    return out;
  } finally {
    ancestors.delete(obj);
  }
}

/**
 * Renders a state as plain JSON — the form the CLI's `--json` output and the HTTP API use: `Date` → ISO string (an invalid one →
 * `null`), `BigInt` → decimal string, `Map` → array of `[key, value]` pairs, `Set` → array, `Uint8Array`
 * (and `Buffer`) → base64 string, `NaN`/`±Infinity` → `"NaN"`/`"Infinity"`/`"-Infinity"`, `-0` → `0`.
 * `undefined` is omitted from objects and becomes `null` in arrays, pairs and at the top, as
 * `JSON.stringify` does. The conversion is one-way: use the serializer for exact round trips.
 *
 * @example
 * toPlainJson({ at: new Date(0), ids: new Set([1n]) }); // { at: '1970-01-01T00:00:00.000Z', ids: ['1'] }
 * @throws TypeError when the value contains itself
 */
export function toPlainJson(value: unknown): PlainJson {
  return convert(value, new Set()) ?? null;
}
