import { describe, expect, it } from 'vitest';
import { storedAs } from '../src/checkpoint.js';
import {
  Checkpoint,
  CheckpointConflict,
  compareThreadIds,
  createRedactor,
  FlowError,
  InvalidArgumentError,
  isFlowError,
  normalizePruneBounds,
} from '../src/index.js';

describe('Checkpoint', () => {
  it('fills defaults and derives done', () => {
    const cp = new Checkpoint({ thread: 't', step: 0, state: { n: 1 } });
    expect(cp.next).toEqual([]);
    expect(cp.interrupted).toBe(false);
    expect(cp.interruptNode).toBeNull();
    expect(cp.interruptPayload).toBeNull();
    expect(cp.ts).toBe('');
    expect(cp.revision).toBe(0);
    expect(cp.done).toBe(true);
    expect(cp.with({ next: ['a'] }).done).toBe(false);
    expect(cp.with({ interrupted: true }).done).toBe(false);
  });

  it('is immutable and with() returns a changed copy', () => {
    const cp = new Checkpoint({ thread: 't', step: 1, state: 1, next: ['a'] });
    expect(() => {
      (cp as { step: number }).step = 2;
    }).toThrow();
    expect(() => (cp.next as string[]).push('b')).toThrow();
    const other = cp.with({ step: 2 });
    expect(other.step).toBe(2);
    expect(cp.step).toBe(1);
  });

  it('copies a next it could see change, and keeps a frozen one as it is', () => {
    const names = ['a'];
    const cp = new Checkpoint({ thread: 't', step: 1, state: 1, next: names });
    names.push('b');
    expect(cp.next).toEqual(['a']);
    expect(Object.isFrozen(cp.next)).toBe(true);
    const frozen = Object.freeze(['a', 'b']);
    expect(new Checkpoint({ thread: 't', step: 1, state: 1, next: frozen }).next).toBe(frozen);
  });

  it('normalises ts to toISOString form', () => {
    const cp = new Checkpoint({ thread: 't', step: 0, state: 1, ts: '2024-05-06T07:08:09+02:00' });
    expect(cp.ts).toBe('2024-05-06T05:08:09.000Z');
  });

  it.each([
    [{ thread: '', step: 0 }],
    [{ thread: 'x'.repeat(513), step: 0 }],
    [{ thread: 'a\u0000b', step: 0 }],
    [{ thread: 'a\ud800', step: 0 }],
    [{ thread: 42, step: 0 }],
    [{ thread: 't', step: -1 }],
    [{ thread: 't', step: 1.5 }],
    [{ thread: 't', step: 2 ** 31 }],
    [{ thread: 't', step: 0, next: 'a' }],
    [{ thread: 't', step: 0, next: ['a', 1] }],
    // A hole is no node name: a sparse list is rejected, frozen or not.
    [{ thread: 't', step: 0, next: new Array<string>(1) }],
    [{ thread: 't', step: 0, next: Object.freeze(new Array<string>(1)) }],
    [{ thread: 't', step: 0, interrupted: 'yes' }],
    [{ thread: 't', step: 0, ts: 'not a date' }],
  ])('rejects invalid fields %j with InvalidArgumentError', (fields) => {
    expect(() => new Checkpoint({ state: null, ...(fields as object) } as never)).toThrow(
      InvalidArgumentError,
    );
  });

  it('accepts the longest thread id and the largest step', () => {
    expect(new Checkpoint({ thread: 'x'.repeat(512), step: 2 ** 31 - 1, state: null }).step).toBe(
      2 ** 31 - 1,
    );
  });
});

describe('storedAs (what put answers)', () => {
  const init = {
    thread: 't',
    step: 3,
    state: { n: 1 },
    next: ['a', 'b'],
    interrupted: true,
    interruptNode: 'a',
    interruptPayload: { ask: 'ok?' },
    error: { node: 'a', message: 'boom' },
    meta: { stateVersion: 2 },
  };

  it('copies every field, stamped with ts and revision, frozen like any checkpoint', () => {
    const cp = new Checkpoint(init);
    const stored = storedAs(cp, '2026-12-01T23:50:00.000Z', 4);
    expect(stored).toBeInstanceOf(Checkpoint);
    expect(stored.toJSON()).toEqual(cp.with({ ts: '2026-12-01T23:50:00.000Z', revision: 4 }).toJSON());
    expect(Object.isFrozen(stored)).toBe(true);
    expect(stored.state).toBe(cp.state);
  });

  it("checks the backend's revision, and leaves every later construction checked", () => {
    const cp = new Checkpoint(init);
    for (const revision of [-1, 1.5, Number.NaN, '2' as unknown as number]) {
      expect(() => storedAs(cp, cp.ts, revision)).toThrow(InvalidArgumentError);
    }
    storedAs(cp, '2026-12-01T23:50:00.000Z', 1);
    expect(() => new Checkpoint({ ...init, thread: '' })).toThrow(InvalidArgumentError);
    expect(() => new Checkpoint({ ...init, ts: 'yesterday' })).toThrow(InvalidArgumentError);
    expect(new Checkpoint({ ...init, ts: '2026-12-01T23:50:00Z' }).ts).toBe('2026-12-01T23:50:00.000Z');
  });
});

describe('errors', () => {
  it('carry stable codes and a readable message', () => {
    const e = new CheckpointConflict({ thread: 't1', step: 4, expected: 2, actual: 3, backend: 'postgres' });
    expect(e).toBeInstanceOf(FlowError);
    expect(e.code).toBe('CHECKPOINT_CONFLICT');
    expect(e.name).toBe('CheckpointConflict');
    expect(e.message).toBe('[flow:postgres] conflict on thread "t1" step 4: expected revision 2, found 3');
    expect(isFlowError(e, 'CHECKPOINT_CONFLICT')).toBe(true);
    expect(isFlowError(e, 'STORAGE')).toBe(false);
    expect(isFlowError(new Error('x'))).toBe(false);
  });
});

describe('compareThreadIds', () => {
  it('orders by code point, like UTF-8 bytes', () => {
    const ids = ['b', 'a', '\u{1F600}', '\uFFFD', 'é', 'aa', 'A'];
    const sorted = [...ids].sort(compareThreadIds);
    const byBytes = [...ids].sort((x, y) => Buffer.compare(Buffer.from(x), Buffer.from(y)));
    expect(sorted).toEqual(byBytes);
  });
});

describe('normalizePruneBounds', () => {
  it('requires a valid bound', () => {
    expect(() => normalizePruneBounds({})).toThrow(InvalidArgumentError);
    expect(() => normalizePruneBounds({ olderThan: 'yesterday' })).toThrow(InvalidArgumentError);
    expect(() => normalizePruneBounds({ beforeStep: -1 })).toThrow(InvalidArgumentError);
    // Date reads each of these as some instant (2024-01-01, 2001-01-01, 5 May 2001): a prune must not.
    for (const olderThan of ['garbage 2024', '1', 'May 5', 'Mon, 01 Jan 2024 00:00:00 GMT']) {
      expect(() => normalizePruneBounds({ olderThan }), olderThan).toThrow(InvalidArgumentError);
    }
    expect(normalizePruneBounds({ olderThan: new Date(0), beforeStep: 3 })).toEqual({
      beforeStep: 3,
      olderThan: '1970-01-01T00:00:00.000Z',
    });
  });
});

describe('node names', () => {
  it('next and interruptNode hold no U+0000 and no lone surrogate, which a backend could not store as they are', () => {
    const init = { thread: 't', step: 0, state: 1 };
    for (const next of [['a\u0000b'], ['ok', '\ud800'], ['\udfffx']]) {
      expect(() => new Checkpoint({ ...init, next }), JSON.stringify(next)).toThrow(InvalidArgumentError);
    }
    expect(() => new Checkpoint({ ...init, interrupted: true, interruptNode: 'x\u0000' })).toThrow(
      InvalidArgumentError,
    );
    expect(() => new Checkpoint({ ...init, interrupted: true, interruptNode: '\ud83d' })).toThrow(
      InvalidArgumentError,
    );
    const ok = new Checkpoint({
      ...init,
      next: ['🎉', 'a b', '"q"', '/..'],
      interrupted: true,
      interruptNode: '🎉',
    });
    expect(ok.next).toEqual(['🎉', 'a b', '"q"', '/..']);
    expect(ok.interruptNode).toBe('🎉');
  });
});

describe('ts', () => {
  it('takes ISO-8601 text only, stored as new Date(text).toISOString() reads it', () => {
    const ts = (text: string) => new Checkpoint({ thread: 't', step: 0, state: 1, ts: text }).ts;
    for (const text of [
      '2024',
      '2024-03',
      '2024-01-01',
      '2024-01-01T03:04',
      '2024-01-01 03:04:05',
      '2024-01-01T03:04:05.123456+0200',
      '2024-01-01t03:04:05z',
      '2024-02-29T00:00:00.000Z',
      '+010000-01-01T00:00:00.000Z',
      '-000001-12-31T23:59:59.999-01:00',
    ]) {
      expect(ts(text), text).toBe(new Date(text).toISOString());
    }
    // Date reads each of these as some instant; none is ISO-8601.
    for (const text of [
      'hello 5',
      '1',
      '99',
      'garbage 2024',
      'May 5',
      'Mon, 01 Jan 2024 00:00:00 GMT',
      '2024/01/01',
    ]) {
      expect(Number.isNaN(Date.parse(text)), text).toBe(false);
      expect(() => ts(text), text).toThrow(InvalidArgumentError);
    }
  });

  it('refuses a ts whose calendar or clock fields do not exist, naming the field and the value', () => {
    const make = (ts: string) => new Checkpoint({ thread: 't', step: 0, state: {}, ts });
    expect(() => make('2025-02-30T00:00:00Z')).toThrow(
      new InvalidArgumentError(
        'ts names a date or time that does not exist: day 30 (February 2025 has 28 days), got "2025-02-30T00:00:00Z"',
      ),
    );
    expect(() => make('2025-01-01T24:00:00Z')).toThrow(
      new InvalidArgumentError(
        'ts names a date or time that does not exist: hour 24 (hours run 00-23), got "2025-01-01T24:00:00Z"',
      ),
    );
    for (const bad of [
      '2021-02-29T00:00:00.000Z',
      '2025-04-31',
      '2025-06-31T12:00+05:30',
      '2025-01-01T10:60',
    ]) {
      expect(() => make(bad), bad).toThrow(InvalidArgumentError);
    }
    expect(make('2024-02-29T00:00:00Z').ts).toBe('2024-02-29T00:00:00.000Z');
    expect(make('-000001-01-01T00:00:00.000Z').ts).toBe('-000001-01-01T00:00:00.000Z');
    expect(make('+275760-09-13T00:00:00.000Z').ts).toBe('+275760-09-13T00:00:00.000Z');
  });

  it('says the same of a Date as of a bad string: ts is an ISO-8601 string', () => {
    const make = (ts: unknown) => new Checkpoint({ thread: 't', step: 0, state: {}, ts: ts as string });
    expect(() => make(new Date(0))).toThrow(
      new InvalidArgumentError(
        'ts must be an ISO-8601 string (as Date#toISOString() writes), got a Date (pass date.toISOString())',
      ),
    );
    expect(() => make('May 5')).toThrow(
      new InvalidArgumentError('ts must be an ISO-8601 string (as Date#toISOString() writes), got "May 5"'),
    );
    expect(() => make(5)).toThrow(
      new InvalidArgumentError('ts must be an ISO-8601 string (as Date#toISOString() writes), got 5'),
    );
  });
});

describe('createRedactor', () => {
  it('masks matching keys at any depth without changing the input', () => {
    const redact = createRedactor(['password', /token$/i]);
    const input = { user: { password: 'p', apiToken: 't', name: 'n' }, list: [{ password: 1 }] };
    expect(redact(input)).toEqual({
      user: { password: '[redacted]', apiToken: '[redacted]', name: 'n' },
      list: [{ password: '[redacted]' }],
    });
    expect(input.user.password).toBe('p');
  });
});

describe('assertListThreadsOptions', () => {
  it('rejects an after cursor that is not well-formed Unicode, so every backend answers alike', async () => {
    const { assertListThreadsOptions } = await import('../src/index.js');
    expect(() => assertListThreadsOptions({ after: 'a\ud800' })).toThrow(InvalidArgumentError);
    expect(() => assertListThreadsOptions({ after: 7 })).toThrow(InvalidArgumentError);
    expect(() => assertListThreadsOptions({ after: 'any string, stored or not' })).not.toThrow();
  });
});
