import type { Redis } from 'ioredis';

/** The parts of a step's packed field (layout 6, codec.ts's packStep), revision first. */
export interface PackedStep {
  head: string[];
  meta: string;
  payload: string;
  state: string;
}

export function splitPacked(packed: string): PackedStep {
  const headEnd = packed.indexOf('\n');
  const metaEnd = packed.indexOf('\n', headEnd + 1);
  const head = packed.slice(0, headEnd).split(' ');
  const payloadEnd = metaEnd + 1 + Number(head[3]);
  return {
    head,
    meta: packed.slice(headEnd + 1, metaEnd),
    payload: packed.slice(metaEnd + 1, payloadEnd),
    state: packed.slice(payloadEnd),
  };
}

/** Joins the parts again, with the payload length the payload now has. */
export function joinPacked({ head, meta, payload, state }: PackedStep): string {
  return `${[...head.slice(0, 3), String(payload.length), ...head.slice(4)].join(' ')}\n${meta}\n${payload}${state}`;
}

/** Overwrites one part of step `step`'s packed field in checkpoints hash `key`, as another client could. */
export async function editPacked(
  admin: Redis,
  key: string,
  step: number,
  part: 'meta' | 'payload' | 'state',
  edit: (text: string) => string,
): Promise<void> {
  const packed = await admin.hget(key, String(step));
  if (packed === null) throw new Error(`no field ${step} in ${key} to damage`);
  const parts = splitPacked(packed);
  if (part === 'state' && parts.head[2] !== 's')
    throw new Error(`step ${step} of ${key} has its state in a key`);
  parts[part] = edit(parts[part]);
  await admin.hset(key, String(step), joinPacked(parts));
}
