import type { SerializeContext } from './serializer.js';

/**
 * What the encrypted serializer has already authenticated: an envelope's exact text and the place it was
 * authenticated at, with its plaintext text (`null` for a null marker). Only envelopes this serializer
 * encrypted, or decrypted and verified, go in; its keys never change, so the same text at the same place would
 * authenticate again to the same plaintext. A hit needs both to be equal: a tampered text, or the same text at
 * another place, misses and is checked in full.
 *
 * Bounded by bytes. An envelope counts 1 byte a character (it is ASCII), the plaintext 2 (V8 keeps text outside
 * Latin-1 at 2 bytes a character), and each entry `ENTRY_BYTES` more. Eviction is least recently used, in its
 * second-chance form: a hit only marks its entry, so reading costs no reordering.
 */
export class DecryptionCache {
  readonly #limit: number;
  #bytes = 0;
  /** By the envelope's tail (its tag): a short key to hash; the full text is compared on every hit. */
  readonly #entries = new Map<string, Entry>();

  constructor(limitBytes: number) {
    this.#limit = limitBytes;
  }

  /** The plaintext text of `text` at `place` (`null` for a null marker), or `undefined` when not held. */
  get(text: string, place: SerializeContext): string | null | undefined {
    const entry = this.#entries.get(tail(text));
    if (entry === undefined || entry.text !== text || !samePlace(entry.place, place)) return undefined;
    entry.used = true;
    return entry.plain;
  }

  /** Holds `plain` as what `text` authenticates to at `place`. */
  set(text: string, place: SerializeContext, plain: string | null): void {
    const bytes = ENTRY_BYTES + text.length + placeBytes(place) + 2 * (plain?.length ?? 0);
    if (bytes > this.#limit) return;
    const key = tail(text);
    this.#drop(key);
    // A copy: the caller's context object may be changed after the call.
    const { thread, step, field, node, key: writeKey, chunk } = place;
    const at = { thread, step, field, node, key: writeKey, chunk };
    this.#entries.set(key, { text, place: at, plain, bytes, used: false });
    this.#bytes += bytes;
    while (this.#bytes > this.#limit) {
      const [oldest, entry] = this.#entries.entries().next().value as [string, Entry];
      this.#entries.delete(oldest);
      if (entry.used) {
        entry.used = false;
        this.#entries.set(oldest, entry);
      } else {
        this.#bytes -= entry.bytes;
      }
    }
  }

  #drop(key: string): void {
    const old = this.#entries.get(key);
    if (old === undefined) return;
    this.#entries.delete(key);
    this.#bytes -= old.bytes;
  }
}

interface Entry {
  text: string;
  place: SerializeContext;
  plain: string | null;
  bytes: number;
  /** Read since it was last passed over by eviction. */
  used: boolean;
}

/** A rough cost of an entry besides its strings: the entry and place objects, the map slot, the key. */
const ENTRY_BYTES = 160;

/**
 * The same place as the associated data binds (`placeJson` in the envelope): a chunk by thread and id, every
 * other field by thread, step, field, and a write's node and key.
 */
function samePlace(a: SerializeContext, b: SerializeContext): boolean {
  if (a.thread !== b.thread || a.field !== b.field) return false;
  if (a.field === 'chunk') return a.chunk === b.chunk;
  return a.step === b.step && (a.node ?? null) === (b.node ?? null) && (a.key ?? null) === (b.key ?? null);
}

function placeBytes(place: SerializeContext): number {
  return (
    2 *
    (place.thread.length + (place.node?.length ?? 0) + (place.key?.length ?? 0) + (place.chunk?.length ?? 0))
  );
}

/** The last 24 characters of an envelope text: its closing quote and its tag's base64url. */
function tail(text: string): string {
  return text.slice(-24);
}
