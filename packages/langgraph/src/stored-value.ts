import { JsonPlusSerializer, type SerializerProtocol } from '@langchain/langgraph-checkpoint';
import { isPlainJson } from './plain-json.js';

/**
 * A LangGraph value as this package stores it inside a @flow record: the saver's own serde output, so
 * LangChain messages and LangGraph's types come back as they went in. JSON output is kept as text (legible in
 * `flow show`, and no base64 growth); any other output as bytes.
 */
export type StoredValue = { t: string; s: string } | { t: string; b: Uint8Array };

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Serializes `value` with `serde`. Plain JSON data under LangGraph's own `JsonPlusSerializer` (not a subclass)
 * is written with `JSON.stringify`, the same text that serializer makes through its cycle-safe stringify and a
 * UTF-8 round trip (checked in test/stored-value.test.ts): most of a step's values are numbers, strings and
 * small plain objects.
 */
export async function storeValue(serde: SerializerProtocol, value: unknown): Promise<StoredValue> {
  const plain = storePlain(serde, value);
  if (plain !== undefined) return plain;
  const [type, data] = await serde.dumpsTyped(value);
  if (type === 'json') {
    try {
      return { t: type, s: typeof data === 'string' ? data : utf8.decode(data) };
    } catch {
      // not UTF-8: kept as bytes below
    }
  }
  return { t: type, b: typeof data === 'string' ? new TextEncoder().encode(data) : new Uint8Array(data) };
}

/**
 * `storeValue` without a promise, for the values it writes with `JSON.stringify`; undefined for the rest. A put
 * stores a few small values, and each promise costs a hook call once LangGraph has turned AsyncLocalStorage on.
 */
export function storePlain(serde: SerializerProtocol, value: unknown): StoredValue | undefined {
  return Object.getPrototypeOf(serde) === JsonPlusSerializer.prototype && isPlainJson(value)
    ? { t: 'json', s: JSON.stringify(value) }
    : undefined;
}

/** Rebuilds a stored value with `serde`. */
export function loadValue(serde: SerializerProtocol, stored: StoredValue): Promise<unknown> {
  return serde.loadsTyped(stored.t, 's' in stored ? stored.s : stored.b);
}

/** The plain JSON form of a stored value, for @flow's views (an interrupt's payload); bytes as a note. */
export function plainOf(stored: StoredValue): unknown {
  if ('b' in stored) return { type: stored.t, bytes: stored.b.length };
  try {
    return JSON.parse(stored.s);
  } catch {
    return stored.s;
  }
}
