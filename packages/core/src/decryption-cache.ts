import type { SerializeContext } from './serializer.js';

/**
 * What the encrypted serializer has already authenticated: an envelope's exact text and the place it was
 * authenticated at, with its plaintext text
 * (`null` for a null marker). Only envelopes this serializer decrypted and verified go in (a read fills it,
 * a write does not); its
 * keys never change, so the same text at the same place would authenticate again to the same plaintext. A hit
 * needs both to be equal: a tampered text, or the same text at another place, misses and is checked in full.
 *
 * Bounded by bytes. An envelope counts 1 byte a character (it is ASCII), the plaintext 2 (V8 keeps text outside
 * Latin-1 at 2 bytes a character), and each entry `ENTRY_BYTES` more. Eviction is least recently set or read
 * first, a generation at a time: entries go into the youngest of a few maps, a new one is begun when it holds
 * 1/`GENERATIONS` of the bound, and the oldest maps are dropped whole while the total is over the bound; a
 * hit in an older map moves its entry to the youngest. So at least (`GENERATIONS` − 1)/`GENERATIONS` of the
 * bound stays held once it has been filled.
 *
 * Filled on every read that decrypts, so it is kept cheap to fill: a fill only adds to a small map. Evicting
 * entry by entry (a map deletion and a queue step for each) cost twice what this does.
 */
export class DecryptionCache {
  readonly #limit: number;
  /** Bytes at which the youngest generation is full: a new one is begun before an entry would pass it. */
  readonly #share: number;
  #bytes = 0;
  /** Youngest first. */
  readonly #generations: Generation[] = [newGeneration()];

  constructor(limitBytes: number) {
    this.#limit = limitBytes;
    this.#share = Math.ceil(limitBytes / GENERATIONS);
  }

  /** The plaintext text of `text` at `place` (`null` for a null marker), or `undefined` when not held. */
  get(text: string, place: SerializeContext): string | null | undefined {
    const key = tagHash(text);
    const generations = this.#generations;
    for (let g = 0; g < generations.length; g++) {
      const entry = generations[g]!.entries.get(key);
      if (entry === undefined || entry.text !== text || !samePlace(entry, place)) continue;
      if (g > 0) {
        // Read again: it moves to the youngest generation, so it outlives everything not read since. A
        // generation left empty goes, or rereading a set of entries would leave empty maps behind.
        const from = generations[g]!;
        from.entries.delete(key);
        from.bytes -= entry.bytes;
        this.#bytes -= entry.bytes;
        if (from.entries.size === 0) generations.splice(g, 1);
        this.#add(entry);
      }
      return entry.plain;
    }
    return undefined;
  }

  /** Holds `plain` as what `text` authenticates to at `place`. */
  set(text: string, place: SerializeContext, plain: string | null): void {
    const bytes = ENTRY_BYTES + text.length + placeBytes(place) + 2 * (plain?.length ?? 0);
    if (bytes > this.#limit) return;
    // The place's parts are copied: the caller's context object may be changed after the call.
    this.#add({
      key: tagHash(text),
      text,
      thread: place.thread,
      step: place.step,
      field: place.field,
      node: place.node,
      writeKey: place.key,
      chunk: place.chunk,
      plain,
      bytes,
    });
  }

  #add(entry: Entry): void {
    let young = this.#generations[0]!;
    // The same text set again, or another with the same number (rare; an attacker who can write the store
    // can only cost misses): the entry it replaces frees its bytes. An older generation's copy is shadowed.
    const old = young.entries.get(entry.key);
    if (old !== undefined) {
      young.bytes -= old.bytes;
      this.#bytes -= old.bytes;
    }
    if (young.bytes > 0 && young.bytes + entry.bytes > this.#share) {
      young = newGeneration();
      this.#generations.unshift(young);
    }
    young.entries.set(entry.key, entry);
    young.bytes += entry.bytes;
    this.#bytes += entry.bytes;
    while (this.#bytes > this.#limit) this.#bytes -= (this.#generations.pop() as Generation).bytes;
  }
}

interface Generation {
  readonly entries: Map<number, Entry>;
  bytes: number;
}

function newGeneration(): Generation {
  return { entries: new Map(), bytes: 0 };
}

interface Entry {
  readonly key: number;
  readonly text: string;
  readonly thread: string;
  readonly step: number;
  readonly field: SerializeContext['field'];
  readonly node: string | undefined;
  readonly writeKey: string | undefined;
  readonly chunk: string | undefined;
  readonly plain: string | null;
  readonly bytes: number;
}

/** How many parts the bound is held in: the oldest part goes whole, so up to this fraction of it is not held. */
const GENERATIONS = 8;

/** A rough cost of an entry besides its strings: the entry object and its map slot. */
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
