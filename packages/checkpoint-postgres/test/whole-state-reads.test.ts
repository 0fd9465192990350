import { Checkpoint, type CheckpointInit } from '@flow/core';
import { afterAll, describe, expect, it } from 'vitest';
import { PostgresCheckpointer } from '../src/index.js';
import { countingPool } from './support/counting-pool.js';
import { dropSchema, newPool, uniqueSchema, url } from './support/stores.js';

const inner = newPool(1);
const schemas: string[] = [];
afterAll(async () => {
  await inner.end();
  for (const schema of schemas) await dropSchema(url, schema);
});

// get reads a whole state in two columns (pg spends client CPU on every column); list reads eleven. Each row
// differs from the defaults in one field, so a field the two-column read dropped or misplaced shows here.
const fields: [string, Partial<CheckpointInit>][] = [
  ['nothing but the usual fields', {}],
  ['interrupted', { interrupted: true }],
  ['an interrupt node', { interruptNode: 'review "it"' }],
  ['an interrupt payload', { interruptPayload: { question: 'ok?\n', n: [1, null] } }],
  ['an error', { error: { node: 'work', message: 'boom\u0000 "quoted"' } }],
  ['meta', { meta: { stateVersion: 2 } }],
  ['a frontier of two nodes', { next: ['a', 'b "c"'] }],
  ['a timestamp far in the future', { ts: '+010000-01-01T00:00:00.000Z' }],
];

describe('a get of a whole state', () => {
  it.each(fields)('answers every field of a row with %s, as list does', async (_, init) => {
    const schema = uniqueSchema();
    schemas.push(schema);
    const pool = countingPool(inner);
    const cp = new PostgresCheckpointer(pool, { schema });
    await cp.put(new Checkpoint({ thread: 't', step: 0, state: { n: 0 }, next: ['work'] }));
    await cp.put(new Checkpoint({ thread: 't', step: 1, state: { n: 1 }, next: ['work'], ...init }));
    await cp.put(new Checkpoint({ thread: 't', step: 1, state: { n: 1 }, next: ['work'], ...init }));
    const listed = (await cp.list('t')).map((c) => c.toJSON());
    expect(listed[0]?.revision).toBe(2);

    pool.reset();
    expect((await cp.get('t'))?.toJSON()).toEqual(listed[0]);
    expect((await cp.get('t', 1))?.toJSON()).toEqual(listed[0]);
    expect((await cp.get('t', 0))?.toJSON()).toEqual(listed[1]);
    const [latest] = pool.sent;
    const { fields: columns } = await inner.query({ text: latest!.text, values: ['t'] });
    expect(columns.map((c) => c.name)).toEqual(['head', 'state']);
    await cp.close();
  });
});
