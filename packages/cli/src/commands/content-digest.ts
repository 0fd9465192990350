import { createHash, type Hash } from 'node:crypto';

/** Hashed text is batched: one `update` per primitive would dominate the walk of a large state. */
const BATCH = 64 * 1024;

class DigestWriter {
  readonly hash: Hash = createHash('sha256');
  #buffer = '';

  add(text: string): void {
    this.#buffer += text;
    if (this.#buffer.length >= BATCH) this.flush();
  }

  /** A string, length first, so no two sequences of strings give the same text. */
  addString(tag: string, text: string): void {
    this.add(`${tag}${text.length}:`);
    if (text.length >= BATCH) {
      this.flush();
      this.hash.update(text);
    } else this.add(text);
  }

  flush(): void {
    if (this.#buffer !== '') this.hash.update(this.#buffer);
    this.#buffer = '';
  }
}

/** The digest text of a primitive (strings aside), or undefined for an object. */
function primitiveText(value: unknown): string | undefined {
  switch (typeof value) {
    case 'number':
      // Object.is semantics: -0 is not 0, NaN is NaN.
      return `n${Object.is(value, -0) ? '-0' : String(value)};`;
    case 'bigint':
      return `i${value};`;
    case 'boolean':
      return value ? 't' : 'f';
    case 'undefined':
      return 'u';
    case 'object':
      return value === null ? 'z' : undefined;
    default:
      // Functions and symbols never reach a stored state (the serializer refuses them).
      return `?${String(value).length}:${String(value)}`;
  }
}

function walk(value: unknown, out: DigestWriter): void {
  if (typeof value === 'string') {
    out.addString('s', value);
    return;
  }
  const text = primitiveText(value);
  if (text !== undefined) {
    out.add(text);
    return;
  }
  if (value instanceof Uint8Array) {
    // A Buffer and a Uint8Array with the same bytes are the same: the serializer gives either back.
    out.add(`b${value.byteLength}:`);
    out.flush();
    out.hash.update(value);
    return;
  }
  if (value instanceof Date) {
    out.add(`d${value.getTime()};`);
    return;
  }
  if (value instanceof Map) {
    out.add(`M${value.size}:`);
    for (const [k, v] of value) {
      walk(k, out);
      walk(v, out);
    }
    return;
  }
  if (value instanceof Set || Array.isArray(value)) {
    out.add(`${Array.isArray(value) ? 'A' : 'S'}${Array.isArray(value) ? value.length : value.size}:`);
    for (const item of value) walk(item, out);
    return;
  }
  // Object key order is ignored: Postgres JSONB reorders keys.
  const keys = Object.keys(value as object).sort();
  out.add(`O${keys.length}:`);
  for (const key of keys) {
    out.addString('k', key);
    walk((value as Record<string, unknown>)[key], out);
  }
}

/**
 * A SHA-256 digest of a value as the serializer round-trips it, with exact types: a `Map` is not an array,
 * `1n` is not `"1"`, `-0` is not `0`, `NaN` equals `NaN`. Object key order is ignored (Postgres JSONB
 * reorders keys); `Map` and `Set` order is not (every backend keeps it). A `Buffer` equals a `Uint8Array`
 * with the same bytes. Two values are the same content exactly when their digests match, so a command can
 * compare a state with one it no longer holds.
 */
export function contentDigest(value: unknown): string {
  const out = new DigestWriter();
  walk(value, out);
  out.flush();
  return out.hash.digest('base64');
}
