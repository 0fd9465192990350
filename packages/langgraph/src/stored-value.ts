import type { SerializerProtocol } from '@langchain/langgraph-checkpoint';

/**
 * A LangGraph value as this package stores it inside a @flow record: the saver's own serde output, so
 * LangChain messages and LangGraph's types come back as they went in. JSON output is kept as text (legible in
 * `flow show`, and no base64 growth); any other output as bytes.
 */
export type StoredValue = { t: string; s: string } | { t: string; b: Uint8Array };

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Serializes `value` with `serde`. */
export async function storeValue(serde: SerializerProtocol, value: unknown): Promise<StoredValue> {
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
