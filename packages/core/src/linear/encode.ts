import type { ChunkRecord } from '../record.js';
import { jsonSerializer, type Serializer, toJsonValue } from '../serializer.js';
import {
  childPath,
  FORMAT,
  INLINE_PART,
  idSource,
  isPlainObject,
  LONG_TEXT,
  levelBytes,
  levelOf,
  MAX_DEPTH,
  MAX_OBJECT_PARTS,
  MAX_RUN,
  MIN_RUN,
  type Node,
  plainKeys,
  SMALL_STATE,
  textPieces,
} from './format.js';

/**
 * Nodes whose items are stored in runs of chunks: a list, an object's entries, a Map's entries, a Set's items,
 * a long string's pieces.
 */
type ItemsKind = 'a' | 'e' | 'm' | 's' | 't';

/** A stored chunk as the thread's last put wrote or reused it: items [start, start + count) of a list. */
export interface Segment {
  /** The first item's index; -1 for a leaf's chunk. */
  readonly start: number;
  readonly count: number;
  readonly level: number;
  /** Undefined when the put that made it stored the state whole: its items are known, its chunk is not stored. */
  readonly id: string | undefined;
}

/** A path's chunks in the last put, with the JSON text of each item: what the next put compares against. */
interface PathMemo {
  readonly kind: ItemsKind | 'c';
  readonly segs: readonly Segment[];
  readonly texts: readonly string[];
}

/** What an instance remembers of a thread's last put: each path's chunks, and the characters held. */
export interface ThreadMemo {
  readonly parts: ReadonlyMap<string, PathMemo>;
  readonly bytes: number;
}

/**
 * A state encoded into a skeleton and chunks, or (`stateText` undefined) better stored whole: nothing in it
 * matches the thread's last put, so chunks would only add rows. The memo then records its parts unstored,
 * so the next put that shares them writes them as chunks.
 */
export interface LinearState {
  readonly stateText: string | undefined;
  readonly refs: string[];
  /** Chunks this put must store (the others it references are stored already). */
  readonly chunks: ChunkRecord[];
  readonly memo: ThreadMemo;
  /** With the default serializer and a state stored whole: its text, made from the JSON form at hand. */
  readonly wholeText?: string;
}

/** A chunk the walk will write if the state is stored linear: its data is made only then. */
interface Pending {
  readonly id: string;
  readonly text: string;
  readonly payload: () => unknown;
}

interface Place {
  readonly thread: string;
  readonly step: number;
}

/**
 * One put's walk over a state: which parts are inline, which chunks it reuses and which it writes. It walks
 * the value and its JSON form (`toJsonValue`, made once for the whole state) side by side: decisions follow
 * the value, texts come from the JSON form, and what the serializer is given is the value itself (with the
 * default serializer, the JSON form, whose text is what it would write).
 */
class Walk {
  readonly refs: string[] = [];
  readonly pending: Pending[] = [];
  readonly parts = new Map<string, PathMemo>();
  bytes = 0;
  /** Characters of the parts that match the last put's (stored or not): what storing linear would share. */
  matched = 0;
  readonly #newId = idSource();
  readonly #json: boolean;

  constructor(
    readonly prev: ThreadMemo | undefined,
    readonly serializer: Serializer,
    readonly place: Place,
  ) {
    this.#json = serializer === jsonSerializer;
  }

  /** The node for `value` (JSON form `json`) at `path`, and about how many characters of JSON it holds. */
  part(value: unknown, json: unknown, path: string, depth: number): [Node, number] {
    if (depth < MAX_DEPTH) {
      // A string the serializer writes as it is (no U+0000, no lone surrogate: else its JSON form is a tag).
      if (typeof value === 'string' && value.length >= LONG_TEXT && typeof json === 'string')
        return this.text(value, path);
      if (Array.isArray(value)) return this.list(value, json as unknown[], path);
      // A Map or Set that gains an entry per step (tool results by id, say) shares its older entries too. Its
      // JSON form is the serializer's tagged object, whose `v` holds the entries (or items) in order.
      if (value instanceof Map) return this.collection(value, json, 'm', path, () => [...value]);
      if (value instanceof Set) return this.collection(value, json, 's', path, () => [...value]);
      if (isPlainObject(value)) {
        const keys = plainKeys(value);
        if (keys !== undefined) return this.object(value, json as Record<string, unknown>, keys, path, depth);
      }
    }
    return this.leaf(value, json, path);
  }

  private inline(value: unknown, json: unknown): Node {
    return ['v', this.#json ? json : value];
  }

  private leaf(value: unknown, json: unknown, path: string): [Node, number] {
    const text = JSON.stringify(json);
    if (text.length < INLINE_PART) return [this.inline(value, json), text.length];
    const old = this.prev?.parts.get(path);
    const same = old?.kind === 'c' && old.texts[0] === text;
    if (same) this.matched += text.length;
    const seg =
      same && old.segs[0]!.id !== undefined
        ? old.segs[0]!
        : this.write(`[${JSON.stringify(path)},-1,${text}]`, -1, 1, 0, () => [path, -1, value]);
    this.keep(path, { kind: 'c', segs: [seg], texts: [text] });
    return [['c', path], text.length];
  }

  private object(
    value: Record<string, unknown>,
    json: Record<string, unknown>,
    keys: string[],
    path: string,
    depth: number,
  ): [Node, number] {
    if (keys.length > MAX_OBJECT_PARTS) {
      const texts = keys.map((k) => `[${JSON.stringify(k)},${JSON.stringify(json[k])}]`);
      return this.items(value, json, texts, path, 'e', (start, count) =>
        keys.slice(start, start + count).map((k) => [k, this.#json ? json[k] : value[k]]),
      );
    }
    const children: [string, Node][] = [];
    let size = 2;
    let inline = true;
    for (const key of keys) {
      const [node, n] = this.part(value[key], json[key], childPath(path, key), depth + 1);
      size += n + key.length + 4;
      if (node[0] !== 'v') inline = false;
      children.push([key, node]);
    }
    return [inline ? this.inline(value, json) : ['o', children], size];
  }

  private list(value: unknown[], json: unknown[], path: string): [Node, number] {
    const texts: string[] = new Array(json.length);
    for (let i = 0; i < json.length; i++) texts[i] = JSON.stringify(json[i]);
    return this.items(value, json, texts, path, 'a', (start, count) =>
      (this.#json ? json : value).slice(start, start + count),
    );
  }

  private text(value: string, path: string): [Node, number] {
    const pieces = textPieces(value);
    const texts = pieces.map((piece) => JSON.stringify(piece));
    return this.items(value, value, texts, path, 't', (start, count) => pieces.slice(start, start + count));
  }

  private collection(
    value: Map<unknown, unknown> | Set<unknown>,
    json: unknown,
    kind: 'm' | 's',
    path: string,
    items: () => unknown[],
  ): [Node, number] {
    const entries = (json as { v: unknown[] }).v;
    const texts: string[] = new Array(entries.length);
    for (let i = 0; i < entries.length; i++) texts[i] = JSON.stringify(entries[i]);
    // With the default serializer a chunk holds the JSON forms; any other is given the values themselves.
    const source = this.#json ? entries : items();
    return this.items(value, json, texts, path, kind, (start, count) => source.slice(start, start + count));
  }

  /** A list (or an object's entries) of items whose JSON texts are `texts`, stored as chunks of runs of them. */
  private items(
    value: unknown,
    json: unknown,
    texts: readonly string[],
    path: string,
    kind: ItemsKind,
    slice: (start: number, count: number) => unknown[],
  ): [Node, number] {
    const n = texts.length;
    // at[i]: characters of items [0, i) with a comma after each, so [a, b) holds at[b] - at[a] - 1.
    const at = new Array<number>(n + 1);
    at[0] = 0;
    for (let i = 0; i < n; i++) at[i + 1] = at[i]! + texts[i]!.length + 1;
    const total = n === 0 ? 0 : at[n]! - 1;
    if (total + 2 < INLINE_PART) return [this.inline(value, json), total + 2];
    const sizeOf = (start: number, end: number) => at[end]! - at[start]! - 1;

    /** A chunk to write, made only once merging has settled, so no chunk is written and then merged away. */
    type Run =
      | Segment
      | { readonly start: number; readonly count: number; readonly level: number; id?: undefined };
    const plan = (start: number, end: number, level: number): Run => ({
      start,
      count: end - start,
      level: Math.max(level, levelOf(sizeOf(start, end))),
    });

    // The last put's chunks over the items still there: each one that holds the same items (by text) is
    // referenced again; the first one with an edited item is written again, split a level down, so that further
    // edits there (a summary at the head of a list, say) rewrite a smaller chunk each time, not the rest of the
    // list.
    const segs: Run[] = [];
    let pos = 0;
    const old = this.prev?.parts.get(path);
    if (old?.kind === kind) {
      let same = 0;
      const limit = Math.min(n, old.texts.length);
      while (same < limit && old.texts[same] === texts[same]) same++;
      let edited = false;
      for (const seg of old.segs) {
        const end = seg.start + seg.count;
        if (end > limit) break;
        let unchanged = true;
        for (let i = Math.max(seg.start, same); i < end && unchanged; i++)
          unchanged = old.texts[i] === texts[i];
        // A second chunk with changes (items removed or inserted shift all that follows): the rest is new.
        if (!unchanged && edited) break;
        if (!unchanged) edited = true;
        if (unchanged) {
          // A part the last put knew but stored whole is written now, as the chunk it would have been.
          segs.push(seg.id === undefined ? plan(seg.start, end, seg.level) : seg);
          this.matched += sizeOf(seg.start, end);
        } else if (seg.level === 0) {
          segs.push(plan(seg.start, end, 0));
        } else {
          const piece = levelBytes(Math.max(1, seg.level - 1));
          for (let from = seg.start; from < end; ) {
            let to = from + 1;
            while (to < end && sizeOf(from, to) < piece) to++;
            segs.push(plan(from, to, 0));
            from = to;
          }
        }
        pos = end;
      }
    }
    // The rest is new: one chunk when small; when large (a first put, an edit far back), chunks of the
    // largest level it fills, then of smaller ones, so the merges below find nothing to redo.
    let from = pos;
    while (from < n) {
      const level = levelOf(sizeOf(from, n));
      let end = n;
      if (level > 0) {
        end = from + 1;
        while (end < n && sizeOf(from, end) < levelBytes(level)) end++;
      }
      segs.push(plan(from, end, level));
      from = end;
    }
    // A trailing run of same-level chunks merges into one a level up once it is long, or large enough and
    // not short.
    for (;;) {
      const last = segs.length - 1;
      const level = segs[last]!.level;
      let first = last;
      while (first > 0 && segs[first - 1]!.level === level) first--;
      const run = last - first + 1;
      const start = segs[first]!.start;
      const end = segs[last]!.start + segs[last]!.count;
      if (run < MAX_RUN && (run < MIN_RUN || sizeOf(start, end) < levelBytes(level + 1))) break;
      segs.splice(first, run, plan(start, end, level + 1));
    }
    const head = `[${JSON.stringify(path)},`;
    const written = segs.map((seg) => {
      if (seg.id !== undefined) return seg;
      const end = seg.start + seg.count;
      const text = `${head}${seg.start},[${texts.slice(seg.start, end).join(',')}]]`;
      return this.write(text, seg.start, seg.count, seg.level, () => [
        path,
        seg.start,
        slice(seg.start, seg.count),
      ]);
    });
    this.keep(path, { kind, segs: written, texts });
    return [[kind, path, n], total + 2];
  }

  private write(text: string, start: number, count: number, level: number, payload: () => unknown): Segment {
    const id = this.#newId();
    this.pending.push({ id, text, payload });
    return { start, count, level, id };
  }

  /** The new chunks' records: serialized only now that the state is stored linear. */
  chunks(): ChunkRecord[] {
    return this.pending.map(({ id, text, payload }) => ({
      id,
      data: this.#json
        ? text
        : this.serializer.serialize(payload(), { ...this.place, field: 'chunk', chunk: id }),
    }));
  }

  private keep(path: string, memo: PathMemo): void {
    this.parts.set(path, memo);
    for (const seg of memo.segs) this.refs.push(seg.id!);
    for (const text of memo.texts) this.bytes += text.length;
  }
}

/**
 * Encodes `state` as a skeleton and chunks, sharing every chunk of `prev` (the thread's last put) whose text
 * is unchanged. `undefined` when the state is small or nothing in it makes a chunk; no `stateText` when
 * nothing in it matches `prev` (a first put, a state that changed everywhere): then it is stored whole.
 * Throws what the serializer throws; the caller then encodes the state whole, which reports it properly.
 */
export function encodeLinear(
  state: unknown,
  place: Place,
  serializer: Serializer,
  prev: ThreadMemo | undefined,
): LinearState | undefined {
  const walk = new Walk(prev, serializer, place);
  const json = toJsonValue(state);
  const [root, size] = walk.part(state, json, '', 0);
  if (size < SMALL_STATE || walk.refs.length === 0) return undefined;
  const memo = { parts: walk.parts, bytes: walk.bytes };
  if (walk.matched === 0) {
    const parts = new Map<string, PathMemo>();
    for (const [path, part] of walk.parts) {
      parts.set(path, { ...part, segs: part.segs.map((seg) => ({ ...seg, id: undefined })) });
    }
    return {
      stateText: undefined,
      refs: [],
      chunks: [],
      memo: { parts, bytes: walk.bytes },
      ...(serializer === jsonSerializer ? { wholeText: JSON.stringify(json) } : {}),
    };
  }
  const skeleton = [FORMAT, walk.refs.length, root];
  // With the default serializer the skeleton already holds JSON forms: its text is what serialize would make.
  const stateText =
    serializer === jsonSerializer
      ? JSON.stringify(skeleton)
      : serializer.serialize(skeleton, { ...place, field: 'state' });
  return { stateText, refs: walk.refs, chunks: walk.chunks(), memo };
}
