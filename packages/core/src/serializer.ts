import { SerializationError } from './errors.js';

/**
 * Turns values into text and back. Backends store the text; a custom serializer may be passed to any backend
 * (`{ serializer }`). The Postgres backend stores the text as JSONB, so a serializer used there must emit JSON.
 */
export interface Serializer {
  serialize(value: unknown, context?: SerializeContext): string;
  deserialize(text: string, context?: SerializeContext): unknown;
  /**
   * For a serializer that wraps another's text (the encrypted one: an envelope around the inner text), at
   * least the length of the text `text` wraps, read without unwrapping it. Core's size rules (a state under
   * about 2 KB of JSON is stored whole) measure this instead of `text.length`, so wrapping a value does not
   * change how it is stored. Optional: without it they measure `text.length`.
   */
  wrappedLength?(text: string): number;
}

/**
 * Where a value is stored, passed by core to every `serialize`/`deserialize` call it makes, so a serializer can
 * bind a value to its place (the encrypted serializer authenticates it as associated data).
 * `field` is `state`, `interruptPayload`, `write` (then `node` and `key` name the write), or `chunk` (then `chunk`
 * is its id: a part of the thread's state stored once and shared by later steps, so `step` is only the step of
 * the record being written or read, and a serializer that binds a chunk to its place binds thread and id only).
 */
export interface SerializeContext {
  thread: string;
  step: number;
  field: 'state' | 'interruptPayload' | 'write' | 'chunk';
  node?: string;
  key?: string;
  /** The chunk's id, when `field` is `chunk`. */
  chunk?: string;
}

/**
 * The tag key of encoded values. Any object that carries it in the output is a tag, so user objects
 * that happen to have this key are wrapped (`{ "$flow": "obj" }`) and still round-trip.
 */
const TAG = '$flow';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/**
 * Where the walk is, for error messages. The first walk over a value runs without one (`undefined`): it
 * builds no path strings and tracks no ancestors, since nearly every state is plain data. When it throws, the
 * value is walked again with a `Trail`, which names the path of the culprit and tells a cycle from a deep value.
 */
interface Trail {
  path: string;
  /** The objects on the current path: a repeat is a cycle (shared references are fine). */
  ancestors: Set<object>;
}

function fail(trail: Trail | undefined, what: string): never {
  throw new SerializationError(`cannot serialize ${what}${trail ? ` at ${trail.path}` : ''}`);
}

/** The trail one level down. Callers write `trail && below(trail, ...)` so the quick walk builds no strings. */
function below(trail: Trail, step: string): Trail {
  return { path: trail.path + step, ancestors: trail.ancestors };
}

function toBase64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
}

/**
 * Strings JSON text cannot carry to every store: U+0000 (Postgres JSONB refuses it) and lone surrogates
 * (half of an emoji, e.g. from `slice`; JSONB refuses those too). Both are tagged; all others pass as they are.
 */
function encodeString(value: string): unknown {
  if (!value.isWellFormed()) return { [TAG]: 'utf16', v: Buffer.from(value, 'utf16le').toString('base64') };
  if (value.includes('\u0000')) return { [TAG]: 'str', v: value.split('\u0000') };
  return value;
}

function needsObjectTag(keys: readonly string[]): boolean {
  for (const key of keys) {
    if (key === TAG || key.includes('\u0000') || !key.isWellFormed()) return true;
  }
  return false;
}

/**
 * Encodes a value into plain JSON, tagging what JSON cannot hold. Returns the input itself when nothing
 * beneath it needs changing, so plain JSON states are walked but not copied.
 */
function encode(value: unknown, trail: Trail | undefined): unknown {
  switch (typeof value) {
    case 'string':
      return encodeString(value);
    case 'number':
      if (Number.isFinite(value)) return Object.is(value, -0) ? { [TAG]: 'num', v: '-0' } : value;
      return { [TAG]: 'num', v: String(value) };
    case 'boolean':
      return value;
    case 'undefined':
      return { [TAG]: 'undef' };
    case 'bigint':
      return { [TAG]: 'bigint', v: value.toString() };
    case 'function':
      return fail(trail, 'a function');
    case 'symbol':
      return fail(trail, 'a symbol');
  }
  if (value === null) return null;
  const obj = value as object;
  if (trail === undefined) return encodeObject(obj, undefined);
  if (trail.ancestors.has(obj)) fail(trail, 'a cycle (the value contains itself)');
  trail.ancestors.add(obj);
  try {
    return encodeObject(obj, trail);
  } finally {
    trail.ancestors.delete(obj);
  }
}

function encodeObject(obj: object, trail: Trail | undefined): unknown {
  if (Array.isArray(obj)) return encodeArray(obj, trail);
  const proto = Object.getPrototypeOf(obj);
  if (proto === Object.prototype || proto === null) return encodePlain(obj as Record<string, unknown>, trail);
  if (obj instanceof Date) {
    const t = obj.getTime();
    return { [TAG]: 'date', v: Number.isNaN(t) ? null : obj.toISOString() };
  }
  if (obj instanceof Uint8Array) return { [TAG]: 'bytes', v: toBase64(obj) };
  if (ArrayBuffer.isView(obj) || obj instanceof ArrayBuffer)
    fail(trail, `a ${obj.constructor.name} (only Uint8Array is supported)`);
  if (obj instanceof Promise || obj instanceof WeakMap || obj instanceof WeakSet || obj instanceof RegExp) {
    fail(trail, `a ${obj.constructor.name}`);
  }
  if (obj instanceof Map) {
    let i = 0;
    const entries: unknown[] = [];
    for (const [k, v] of obj) {
      entries.push([
        encode(k, trail && below(trail, `<key ${i}>`)),
        encode(v, trail && below(trail, `<value ${i}>`)),
      ]);
      i++;
    }
    return { [TAG]: 'map', v: entries };
  }
  if (obj instanceof Set) {
    let i = 0;
    const items: unknown[] = [];
    for (const v of obj) {
      items.push(encode(v, trail && below(trail, `<item ${i}>`)));
      i++;
    }
    return { [TAG]: 'set', v: items };
  }
  // A class instance (not a plain object) is stored by its own enumerable fields, as JSON does.
  return encodeFields(obj as Record<string, unknown>, true, trail);
}

/** Sets a key on a fresh object; `__proto__` becomes an own field instead of changing the prototype. */
function setKey(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__')
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

function encodeArray(arr: unknown[], trail: Trail | undefined): unknown[] {
  let out: unknown[] | undefined;
  for (let i = 0; i < arr.length; i++) {
    const item = arr[i];
    const enc = encode(item, trail && below(trail, `[${i}]`));
    if (out === undefined && enc !== item) out = arr.slice(0, i);
    if (out !== undefined) out.push(enc);
  }
  return out ?? arr;
}

/** Whether `Object.prototype` has an enumerable key, which `for...in` would visit on every plain object. */
function prototypeIsPolluted(): boolean {
  for (const _ in Object.prototype) return true;
  return false;
}

/** Set by `toJsonValue` for its walk: `prototypeIsPolluted()`. */
let polluted = false;

/**
 * A plain object's fields in one pass, keys read by `for...in`: no `Object.keys` array and no second loop to
 * check the keys first (a 2 KB state's walk 1.53 -> 1.25 us). `for...in` also visits inherited enumerable keys,
 * which a plain object has only when `Object.prototype` was given one: then, and for a key that needs the
 * object tag (rare), `encodeFields` walks it again by its own keys.
 */
function encodePlain(obj: Record<string, unknown>, trail: Trail | undefined): unknown {
  if (polluted || Object.getOwnPropertySymbols(obj).length > 0) return encodeFields(obj, false, trail);
  let out: Record<string, unknown> | undefined;
  for (const key in obj) {
    if (key === TAG || key.includes('\u0000') || !key.isWellFormed()) return encodeFields(obj, false, trail);
    const item = obj[key];
    const enc = encode(item, trail && below(trail, `.${key}`));
    if (out === undefined && enc !== item) {
      out = {};
      for (const earlier in obj) {
        if (earlier === key) break;
        setKey(out, earlier, obj[earlier]);
      }
    }
    if (out !== undefined) setKey(out, key, enc);
  }
  return out ?? obj;
}

function encodeFields(obj: Record<string, unknown>, copy: boolean, trail: Trail | undefined): unknown {
  const symbols = Object.getOwnPropertySymbols(obj);
  if (symbols.length > 0 && symbols.some((s) => Object.prototype.propertyIsEnumerable.call(obj, s))) {
    fail(trail, 'an object with symbol keys');
  }
  const keys = Object.keys(obj);
  if (needsObjectTag(keys)) {
    const entries: unknown[] = [];
    for (const key of keys) {
      entries.push([
        encode(key, trail && below(trail, '<key>')),
        encode(obj[key], trail && below(trail, `.${key}`)),
      ]);
    }
    return { [TAG]: 'obj', v: entries };
  }
  let out: Record<string, unknown> | undefined = copy ? {} : undefined;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    const item = obj[key];
    const enc = encode(item, trail && below(trail, `.${key}`));
    if (out === undefined && enc !== item) {
      out = {};
      for (let j = 0; j < i; j++) setKey(out, keys[j]!, obj[keys[j]!]);
    }
    if (out !== undefined) setKey(out, key, enc);
  }
  return out ?? obj;
}

function decode(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) value[i] = decode(value[i]);
    return value;
  }
  const obj = value as Record<string, unknown>;
  const tag = obj[TAG];
  if (tag === undefined) {
    // `for...in` would also visit a key given to `Object.prototype` and copy it onto the decoded object.
    if (pollutedOnDecode) for (const key of Object.keys(obj)) obj[key] = decode(obj[key]);
    else for (const key in obj) obj[key] = decode(obj[key]);
    return obj;
  }
  const v = obj.v;
  switch (tag) {
    case 'str':
      return (v as string[]).join('\u0000');
    case 'utf16':
      return Buffer.from(v as string, 'base64').toString('utf16le');
    case 'num':
      return Number(v);
    case 'undef':
      return undefined;
    case 'bigint':
      return BigInt(v as string);
    case 'date':
      return new Date(v === null ? Number.NaN : (v as string));
    case 'bytes':
      return new Uint8Array(Buffer.from(v as string, 'base64'));
    case 'map':
      return new Map((v as [unknown, unknown][]).map(([k, x]) => [decode(k), decode(x)]));
    case 'set':
      return new Set((v as unknown[]).map(decode));
    case 'obj': {
      const out: Record<string, unknown> = {};
      for (const [k, x] of v as [unknown, unknown][]) setKey(out, decode(k) as string, decode(x));
      return out;
    }
    default:
      throw new SerializationError(`unknown ${TAG} tag ${JSON.stringify(tag)}`);
  }
}

/**
 * Encodes a value into a JSON-compatible tree (exact round trip through `fromJsonValue`).
 * Throws `SerializationError` naming the path of a function, symbol, cycle or unsupported object, and one
 * saying so for a value nested deeper than the call stack allows (about 1,500 levels on Node's default stack).
 */
export function toJsonValue(value: unknown, root = 'state'): Json {
  try {
    polluted = prototypeIsPolluted();
    return encode(value, undefined) as Json;
  } catch {
    // Something is unsupported, cyclic (the quick walk recursed until the stack ran out) or too deep.
    // Walking again with a trail finds which, and where.
  }
  try {
    return encode(value, { path: root, ancestors: new Set() }) as Json;
  } catch (error) {
    // Encoding recurses once per level: a value nested deeper than the stack allows overflows it.
    if (error instanceof RangeError && /call stack/i.test(error.message)) {
      throw new SerializationError(
        `cannot serialize ${root}: it is nested too deeply (Node's default stack allows about 1,500 levels)`,
        { cause: error },
      );
    }
    throw error;
  }
}

/** Set by `fromJsonValue` for its walk: `prototypeIsPolluted()`. */
let pollutedOnDecode = false;

/** Decodes what `toJsonValue` produced. Mutates and reuses the given tree. */
export function fromJsonValue(json: unknown): unknown {
  pollutedOnDecode = prototypeIsPolluted();
  return decode(json);
}

/**
 * The default serializer: JSON text with tags for what JSON cannot hold. Round-trips exactly:
 * JSON values (strings containing U+0000 or lone surrogates and objects that look like tags included), `undefined`, `-0`,
 * `NaN`/`±Infinity`, `BigInt`, `Date`, `Map`, `Set`, `Uint8Array` (a `Buffer` comes back as a `Uint8Array`),
 * nested in any combination. Class instances are stored by their own enumerable fields (the prototype is lost).
 * The output is well-formed JSON with no U+0000 and no lone-surrogate escapes, so Postgres JSONB can hold it. Object key order is not preserved.
 */
export const jsonSerializer: Serializer = {
  serialize(value: unknown): string {
    if (value === null) return 'null'; // the usual interrupt payload
    return JSON.stringify(toJsonValue(value));
  },
  deserialize(text: string): unknown {
    if (text === 'null') return null; // the usual interrupt payload
    const parsed: unknown = JSON.parse(text);
    // Fast path: no tag anywhere in the text means there is nothing to decode. The search is for `$flow`,
    // not `"$flow"`: V8 finds a pattern by its first character, and `$` is rare in JSON where `"` is not
    // (measured in tooling/bench/README.md). A `$flow` that is not a tag only costs a walk that changes nothing.
    return text.includes(TAG) ? fromJsonValue(parsed) : parsed;
  },
};
