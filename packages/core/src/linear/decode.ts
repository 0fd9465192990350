import type { ChunkRecord } from '../record.js';
import type { SerializeContext } from '../serializer.js';
import { FORMAT } from './format.js';

/** How the decoder reads stored text (errors already made `CorruptCheckpointError`), and reports corruption. */
export interface LinearReader {
  deserialize(text: string, context: SerializeContext): unknown;
  corrupt(detail: string): never;
}

/** Sets a key on a fresh object; `__proto__` becomes an own field instead of changing the prototype. */
function setKey(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__')
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

/** Rebuilds the state of a linear record (see format.ts) from its skeleton and the chunks of its refs. */
export function decodeLinear(
  record: {
    thread: string;
    step: number;
    state: string;
    refs: readonly string[];
    chunks?: readonly ChunkRecord[];
  },
  reader: LinearReader,
): unknown {
  const { thread, step, refs } = record;
  const corrupt: (detail: string) => never = reader.corrupt;
  const skeleton = reader.deserialize(record.state, { thread, step, field: 'state' }) as unknown[];
  if (!Array.isArray(skeleton) || skeleton.length !== 3 || skeleton[0] !== FORMAT) {
    corrupt('state has chunk references but is not a linear state');
  }
  if (skeleton[1] !== refs.length) {
    corrupt(`it has ${refs.length} chunk references, not the ${skeleton[1]} its state was written with`);
  }
  const data = new Map<string, string>();
  for (const chunk of record.chunks ?? []) data.set(chunk.id, chunk.data);
  /** The chunks of each path: [start, payload]. */
  const parts = new Map<string, [number, unknown][]>();
  for (const id of refs) {
    const text = data.get(id);
    if (text === undefined) corrupt(`chunk ${JSON.stringify(id)} is missing`);
    const chunk = reader.deserialize(text, { thread, step, field: 'chunk', chunk: id }) as [
      string,
      number,
      unknown,
    ];
    if (
      !Array.isArray(chunk) ||
      chunk.length !== 3 ||
      typeof chunk[0] !== 'string' ||
      !Number.isInteger(chunk[1])
    ) {
      corrupt(`chunk ${JSON.stringify(id)} is not a chunk`);
    }
    const list = parts.get(chunk[0]);
    if (list === undefined) parts.set(chunk[0], [[chunk[1], chunk[2]]]);
    else list.push([chunk[1], chunk[2]]);
  }

  const items = (path: string, n: unknown): unknown[] => {
    const runs = (parts.get(path) ?? []).sort((a, b) => a[0] - b[0]);
    const out: unknown[] = [];
    for (const [start, payload] of runs) {
      if (start !== out.length || !Array.isArray(payload))
        corrupt(`the chunks of ${path} do not fit together`);
      for (const item of payload as unknown[]) out.push(item);
    }
    if (out.length !== n) corrupt(`the chunks of ${path} hold ${out.length} items, not ${n}`);
    return out;
  };

  const build = (value: unknown): unknown => {
    if (!Array.isArray(value)) corrupt('the linear state is malformed');
    const node = value as [string, string, unknown];
    switch (node[0]) {
      case 'v':
        return node[1];
      case 'c': {
        const found = parts.get(node[1]);
        if (found === undefined || found.length !== 1 || found[0]![0] !== -1) {
          corrupt(`the chunk of ${node[1]} is missing`);
        }
        return found[0]![1];
      }
      case 'o': {
        const out: Record<string, unknown> = {};
        for (const [key, child] of node[1] as unknown as [string, unknown][]) setKey(out, key, build(child));
        return out;
      }
      case 'a':
        return items(node[1], node[2]);
      case 'e': {
        const out: Record<string, unknown> = {};
        for (const entry of items(node[1], node[2])) {
          const [key, value] = entry as [string, unknown];
          setKey(out, key, value);
        }
        return out;
      }
      case 'm': {
        const out = new Map<unknown, unknown>();
        for (const entry of items(node[1], node[2])) {
          if (!Array.isArray(entry) || entry.length !== 2)
            corrupt(`the chunks of ${node[1]} are not Map entries`);
          out.set(entry[0], entry[1]);
        }
        if (out.size !== node[2]) corrupt(`the chunks of ${node[1]} repeat a Map key`);
        return out;
      }
      case 's': {
        const out = new Set(items(node[1], node[2]));
        if (out.size !== node[2]) corrupt(`the chunks of ${node[1]} repeat a Set item`);
        return out;
      }
      case 't': {
        const pieces = items(node[1], node[2]);
        if (!pieces.every((piece) => typeof piece === 'string'))
          corrupt(`the chunks of ${node[1]} are not pieces of a string`);
        return pieces.join('');
      }
      default:
        return corrupt('the linear state is malformed');
    }
  };
  return build(skeleton[2]);
}
