import { randomFillSync } from 'node:crypto';

/**
 * The linear state format (docs/record.md, "Linear records"). A linear record's `state` is the serializer's
 * text of a skeleton `[1, count, root]`: `root` is a node, `count` the number of the record's `refs`. Nodes:
 *
 * - `['v', value]`: the value itself, inline;
 * - `['c', key]`: the value is the one chunk of `key`;
 * - `['o', [[name, node], ...]]`: a plain object, one node per own key, in order;
 * - `['a', key, n]`: an array of `n` items, held by the chunks of `key`;
 * - `['e', key, n]`: a plain object of `n` keys, its `[name, value]` entries held by the chunks of `key`;
 * - `['m', key, n]`: a `Map` of `n` entries, its `[key, value]` pairs (in insertion order) held by the chunks of `key`;
 * - `['s', key, n]`: a `Set` of `n` items, held by the chunks of `key`;
 * - `['t', key, n]`: a long string, the concatenation of `n` pieces (strings) held by the chunks of `key`.
 *
 * A chunk's data is the serializer's text of `[key, start, payload]`: `start` -1 and the value for `'c'`,
 * else the index of its first item and an array of items. `key` names the node's path in the state, so a
 * chunk says where it goes: `refs` is an unordered set, and no chunk id needs to appear in `state`.
 */
export const FORMAT = 1;

/** Below this many characters of JSON a state is stored whole: small states cost what they always did. */
export const SMALL_STATE = 2048;
/** A part (an object's value, a list) below this many characters stays inline in the skeleton. */
export const INLINE_PART = 256;
/**
 * Chunk levels. Each put's new list items make one level-0 chunk; a trailing run of same-level chunks merges
 * into one chunk a level up when it holds `MAX_RUN` chunks, or `MIN_RUN` chunks and `levelBytes(level + 1)`
 * characters. An item is so rewritten a few times (once per level) and a record references at most about
 * `MAX_RUN` chunks per level: bytes grow linearly with the steps, and so does no ref list.
 */
export const MAX_RUN = 32;
/**
 * Large items (a tool output of kilobytes) fill a level's bytes in a chunk or two; merging only runs of this
 * many keeps the level's chunks large, so a record has fewer of them to read, for the same copies of an item.
 */
export const MIN_RUN = 8;
const LEVEL_1_BYTES = 4096;
export function levelBytes(level: number): number {
  return level <= 0 ? 0 : LEVEL_1_BYTES * MAX_RUN ** (level - 1);
}
/** The level a chunk of `size` characters starts at. */
export function levelOf(size: number): number {
  let level = 0;
  while (size >= levelBytes(level + 1)) level++;
  return level;
}
/**
 * A string this long is stored as pieces of `TEXT_PIECE` characters, items of a list: a text that grows by
 * appending (a transcript, a scratchpad) shares its earlier pieces as a list shares its earlier items.
 */
export const LONG_TEXT = 2048;
export const TEXT_PIECE = 512;

/** `text` cut every `TEXT_PIECE` characters from its start, never between the two halves of a surrogate pair. */
export function textPieces(text: string): string[] {
  const pieces: string[] = [];
  for (let from = 0; from < text.length; ) {
    let to = Math.min(from + TEXT_PIECE, text.length);
    const last = text.charCodeAt(to - 1);
    if (to < text.length && last >= 0xd800 && last <= 0xdbff) to--;
    pieces.push(text.slice(from, to));
    from = to;
  }
  return pieces;
}

/** Beyond this depth a value is a leaf (one chunk or inline), so the walk stays shallow. */
export const MAX_DEPTH = 8;
/** An object with more keys than this is chunked by entries, like a list, rather than one node per key. */
export const MAX_OBJECT_PARTS = 64;

export type Node =
  | readonly ['v', unknown]
  | readonly ['c', string]
  | readonly ['o', readonly (readonly [string, Node])[]]
  | readonly ['a', string, number]
  | readonly ['e' | 'm' | 's' | 't', string, number];

/** The key of the child `name` of the node at `path` (the root's path is `''`). */
export function childPath(path: string, name: string): string {
  return `${path}/${encodeURIComponent(name)}`;
}

/**
 * Fresh chunk ids: eight random base64url characters (48 bits) per put, then the chunk's index in base 36.
 * Ids of one put never collide; two puts of a thread share a prefix with odds of 2^-48.
 */
const POOL_PUTS = 512;
const NONCE_BYTES = 6;
let pool = Buffer.alloc(0);
let poolAt = 0;
export function idSource(): () => string {
  if (poolAt === pool.length) {
    pool = randomFillSync(Buffer.allocUnsafe(NONCE_BYTES * POOL_PUTS));
    poolAt = 0;
  }
  const nonce = pool.toString('base64url', poolAt, poolAt + NONCE_BYTES);
  poolAt += NONCE_BYTES;
  let next = 0;
  return () => nonce + (next++).toString(36);
}

/** The same plain objects `toJsonValue` walks field by field, and whose keys need no tag. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** Keys a node can carry as they are; any other object is a leaf, stored as the serializer encodes it. */
export function plainKeys(value: Record<string, unknown>): string[] | undefined {
  if (Object.getOwnPropertySymbols(value).length > 0) return undefined;
  const keys = Object.keys(value);
  for (const key of keys) {
    if (key === '$flow' || key === '__proto__' || key.includes('\u0000') || !key.isWellFormed())
      return undefined;
  }
  return keys;
}
