import { JsonPlusSerializer, type SerializerProtocol } from '@langchain/langgraph-checkpoint';
import { isPlainJson } from './plain-json.js';

/**
 * A LangGraph value as this package stores it inside a @flow record: the saver's own serde output, so
 * LangChain messages and LangGraph's types come back as they went in. JSON output is kept as text (legible in
 * `flow show`, and no base64 growth); any other output as bytes.
 */
export type StoredValue =
  | { t: string; s: string }
  | { t: string; b: Uint8Array }
  | { t: string; l: readonly string[] };

/**
 * A JSON list this long (in characters of its text) is stored as its items' texts (`l`) rather than as one
 * text: @flow's linear encoding then shares the items a later step still has (a conversation that gains a
 * message per step stores each message once, not once per step), where a single text would be stored whole at
 * every step. Shorter lists stay one text: a small state is stored whole anyway.
 */
export const LIST_FORM_CHARS = 1024;

/** `text`, a serde's JSON list, as its items' texts; undefined unless they rebuild exactly that text. */
function listForm(text: string): string[] | undefined {
  if (text.length < LIST_FORM_CHARS || text.charCodeAt(0) !== 0x5b /* [ */) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined; // not JSON: a serde's own text
  }
  if (!Array.isArray(parsed)) return undefined;
  const texts = parsed.map((item) => JSON.stringify(item));
  // Exact or nothing: the serde reads back the very text it wrote (spacing, escapes and number forms kept).
  return `[${texts.join(',')}]` === text ? texts : undefined;
}

/** The text a stored value holds (a list form joined back), for the serde or for a plain view. */
function textOf(stored: { s: string } | { l: readonly string[] }): string {
  return 's' in stored ? stored.s : `[${stored.l.join(',')}]`;
}

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
    let text: string | undefined;
    try {
      text = typeof data === 'string' ? data : utf8.decode(data);
    } catch {
      // not UTF-8: kept as bytes below
    }
    if (text !== undefined) {
      const l = listForm(text);
      return l === undefined ? { t: type, s: text } : { t: type, l };
    }
  }
  return { t: type, b: typeof data === 'string' ? new TextEncoder().encode(data) : new Uint8Array(data) };
}

/**
 * `storeValue` without a promise, for the values it writes with `JSON.stringify`; undefined for the rest. A put
 * stores a few small values, and each promise costs a hook call once LangGraph has turned AsyncLocalStorage on.
 */
export function storePlain(serde: SerializerProtocol, value: unknown): StoredValue | undefined {
  if (Object.getPrototypeOf(serde) !== JsonPlusSerializer.prototype || !isPlainJson(value)) return undefined;
  if (!Array.isArray(value)) return { t: 'json', s: JSON.stringify(value) };
  // A plain list's text is its items' texts joined, as JSON.stringify writes it: each item stringified once.
  const l = value.map((item) => JSON.stringify(item));
  const length = l.reduce((sum, item) => sum + item.length + 1, 1);
  return length < LIST_FORM_CHARS ? { t: 'json', s: `[${l.join(',')}]` } : { t: 'json', l };
}

/** Rebuilds a stored value with `serde`. */
export function loadValue(serde: SerializerProtocol, stored: StoredValue): Promise<unknown> {
  return serde.loadsTyped(stored.t, 'b' in stored ? stored.b : textOf(stored));
}

/** The plain JSON form of a stored value, for @flow's views (an interrupt's payload); bytes as a note. */
export function plainOf(stored: StoredValue): unknown {
  if ('b' in stored) return { type: stored.t, bytes: stored.b.length };
  const text = textOf(stored);
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
