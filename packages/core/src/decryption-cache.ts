import type { SerializeContext } from './serializer.js';

/**
 * What the encrypted serializer has already authenticated: an envelope's exact text and the place it was
 * authenticated at, with its plaintext text
 * (`null` for a null marker). Only envelopes this serializer encrypted, or decrypted and verified, go in; its
 * keys never change, so the same text at the same place would authenticate again to the same plaintext. A hit
 * needs both to be equal: a tampered text, or the same text at another place, misses and is checked in full.
 *
 * Bounded by bytes. An envelope counts 1 byte a character (it is ASCII), the plaintext 2 (V8 keeps text outside
 * Latin-1 at 2 bytes a character), and each entry `ENTRY_BYTES` more. Eviction is least recently used,
 * in its second-chance form: a hit only marks its entry, so reading costs no reordering.
 *
 * Filled on every put, so it is kept cheap to fill: entries are found by a number made from the envelope's
 * last characters (its tag, random) rather than by text, hold the place's parts in the entry itself, and are
 * evicted from a queue rather than by walking the map. On cold CPU caches, as after a SQLite fsync, that fill costs about 2.7 µs instead of 5.6 µs.
 */
export class DecryptionCache {
  readonly #limit: number;
  #bytes = 0;
  readonly #entries = new Map<number, Entry>();
  /** Entries oldest first; one dropped since (its `bytes` 0) is passed over when it comes up. */
  #queue: (Entry | undefined)[] = [];
  #head = 0;

  constructor(limitBytes: number) {
    this.#limit = limitBytes;
  }

  /** The plaintext text of `text` at `place` (`null` for a null marker), or `undefined` when not held. */
  get(text: string, place: SerializeContext): string | null | undefined {
    const entry = this.#entries.get(tagHash(text));
    if (entry === undefined || entry.text !== text || !samePlace(entry, place)) return undefined;
    entry.used = true;
    return entry.plain;
  }

  /** Holds `plain` as what `text` authenticates to at `place`. */
  set(text: string, place: SerializeContext, plain: string | null): void {
    const bytes = ENTRY_BYTES + text.length + placeBytes(place) + 2 * (plain?.length ?? 0);
    if (bytes > this.#limit) return;
    const key = tagHash(text);
    const old = this.#entries.get(key);
    // Another text with the same number (rare; an attacker who can write the store can only cost misses).
    if (old !== undefined) this.#drop(old);
    // The place's parts are copied: the caller's context object may be changed after the call.
    const entry: Entry = {
      key,
      text,
      thread: place.thread,
      step: place.step,
      field: place.field,
      node: place.node,
      writeKey: place.key,
      chunk: place.chunk,
      plain,
      bytes,
      used: false,
    };
    this.#entries.set(key, entry);
    this.#queue.push(entry);
    this.#bytes += bytes;
    while (this.#bytes > this.#limit) this.#evictOldest();
  }

  #evictOldest(): void {
    const entry = this.#queue[this.#head] as Entry;
    this.#queue[this.#head++] = undefined;
    if (this.#head >= 1024 && 2 * this.#head >= this.#queue.length) {
      this.#queue = this.#queue.slice(this.#head);
      this.#head = 0;
    }
    if (entry.bytes === 0) return;
    if (entry.used) {
      entry.used = false;
      this.#queue.push(entry);
    } else {
      this.#entries.delete(entry.key);
      this.#drop(entry);
    }
  }

  /** Takes an entry's bytes off the count; its strings go now, the entry when the queue passes it. */
  #drop(entry: Entry): void {
    this.#bytes -= entry.bytes;
    entry.bytes = 0;
    entry.text = '';
    entry.plain = null;
  }
}

interface Entry {
  readonly key: number;
  text: string;
  readonly thread: string;
  readonly step: number;
  readonly field: SerializeContext['field'];
  readonly node: string | undefined;
  readonly writeKey: string | undefined;
  readonly chunk: string | undefined;
  plain: string | null;
  /** 0 once dropped. */
  bytes: number;
  /** Read since it was last passed over by eviction. */
  used: boolean;
}

/** A rough cost of an entry besides its strings: the entry object, the map and queue slots. */
const ENTRY_BYTES = 160;

/**
 * The same place as the associated data binds (`placeJson` in the envelope): a chunk by thread and id, every
 * other field by thread, step, field, and a write's node and key.
 */
function samePlace(a: Entry, b: SerializeContext): boolean {
  if (a.thread !== b.thread || a.field !== b.field) return false;
  if (a.field === 'chunk') return a.chunk === b.chunk;
  return (
    a.step === b.step && (a.node ?? null) === (b.node ?? null) && (a.writeKey ?? null) === (b.key ?? null)
  );
}

function placeBytes(place: SerializeContext): number {
  return (
    2 *
    (place.thread.length + (place.node?.length ?? 0) + (place.key?.length ?? 0) + (place.chunk?.length ?? 0))
  );
}

/** A number from the last six characters of an envelope text: its closing quote and its tag's base64url. */
function tagHash(text: string): number {
  let hash = 0;
  for (let i = text.length - 6; i < text.length; i++) hash = (Math.imul(hash, 31) + text.charCodeAt(i)) | 0;
  return hash;
}
