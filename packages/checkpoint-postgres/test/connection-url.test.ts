import { isFlowError } from '@flow/core';
import { describe, expect, it } from 'vitest';
import { PostgresCheckpointer } from '../src/index.js';
import { checkpoint } from './support/checkpoints.js';
import { freshSchemas, newPool, url } from './support/stores.js';

const freshSchema = freshSchemas();

function withSchema(schema: string): string {
  const parsed = new URL(url);
  parsed.searchParams.set('schema', schema);
  return parsed.toString();
}

function thrownBy(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('did not throw');
}

async function tablesIn(schema: string): Promise<string[]> {
  const pool = newPool(1);
  try {
    const { rows } = await pool.query<{ table_name: string }>(
      'SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY 1',
      [schema],
    );
    return rows.map((r) => r.table_name);
  } finally {
    await pool.end();
  }
}

describe('?schema= in the connection URL', () => {
  it('names the schema the checkpointer writes to', async () => {
    const schema = freshSchema();
    const cp = new PostgresCheckpointer(withSchema(schema));
    expect(cp.schema).toBe(schema);
    await cp.put(checkpoint('t', 0));
    await cp.close();
    expect(await tablesIn(schema)).toContain('checkpoints');
    const same = new PostgresCheckpointer(url, { schema });
    expect((await same.get('t'))?.step).toBe(0);
    await same.close();
  });

  it('agrees with an explicit schema option of the same name', async () => {
    const schema = freshSchema();
    const cp = new PostgresCheckpointer(withSchema(schema), { schema });
    expect(cp.schema).toBe(schema);
    await cp.close();
  });

  it('conflicting with the schema option is an InvalidArgumentError', () => {
    const error = thrownBy(() => new PostgresCheckpointer(withSchema('one'), { schema: 'two' }));
    expect(isFlowError(error, 'INVALID_ARGUMENT')).toBe(true);
    expect((error as Error).message).toMatch(/URL says schema "one" but options say "two"/);
  });

  it('is validated like the option', () => {
    const error = thrownBy(() => new PostgresCheckpointer(withSchema('bad-name; DROP')));
    expect(isFlowError(error, 'INVALID_ARGUMENT')).toBe(true);
  });

  it('given twice is an InvalidArgumentError', () => {
    const error = thrownBy(() => new PostgresCheckpointer(`${withSchema('a')}&schema=b`));
    expect(isFlowError(error, 'INVALID_ARGUMENT')).toBe(true);
  });
});

describe('connection URL validation, in the constructor', () => {
  it.each([
    ['not a url', /not a connection URL/],
    ['http://127.0.0.1:5432/postgres', /starts with postgres:\/\/ or postgresql:\/\/, got "http:"/],
    ['mysql://root@127.0.0.1/db', /got "mysql:"/],
    ['   ', /empty/],
  ])('%j → InvalidArgumentError', (bad, message) => {
    const error = thrownBy(() => new PostgresCheckpointer(bad));
    expect(isFlowError(error, 'INVALID_ARGUMENT')).toBe(true);
    expect((error as Error).message).toMatch(message);
  });

  it('never prints the password of a URL it cannot parse', () => {
    const error = thrownBy(() => new PostgresCheckpointer('postgres://u:s3cret@[bad/db'));
    expect((error as Error).message).not.toContain('s3cret');
  });

  it('accepts postgresql:// too', async () => {
    const cp = new PostgresCheckpointer(url.replace(/^postgres:/, 'postgresql:'), { schema: freshSchema() });
    await cp.setup();
    await cp.close();
  });
});
