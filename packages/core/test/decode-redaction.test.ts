import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import {
  type CheckpointRecord,
  decodeRecord,
  isFlowError,
  jsonSerializer,
  redactDecodeError,
  type Serializer,
} from '../src/index.js';

const SECRET = 'sk-live-7f3a9c2e';

function record(state: string, interruptPayload = 'null'): CheckpointRecord {
  return {
    thread: 't',
    step: 3,
    state,
    next: [],
    interrupted: false,
    interruptNode: null,
    interruptPayload,
    ts: '2024-01-01T00:00:00.000Z',
    revision: 1,
    error: null,
    meta: '{}',
  };
}

function decodeError(rec: CheckpointRecord, serializer: Serializer = jsonSerializer): Error {
  try {
    decodeRecord(rec, serializer, 'row 7', 'test');
  } catch (error) {
    return error as Error;
  }
  throw new Error('decodeRecord did not fail');
}

describe('decodeRecord never quotes stored state in a CorruptCheckpointError', () => {
  it('JSON that stops parsing right before a secret: the message names the field and the kind, not the text', () => {
    const error = decodeError(record(`{"token":x${SECRET}"}`));
    expect(isFlowError(error, 'CORRUPT_CHECKPOINT')).toBe(true);
    expect(error.message).toBe(
      '[flow:test] corrupt checkpoint at row 7: state cannot be decoded (SyntaxError)',
    );
    expect(inspect(error, { depth: 5 })).not.toContain('sk-live');
  });

  it('a serializer tag the decoder rejects (BigInt of a secret) in the interrupt payload', () => {
    const error = decodeError(record('1', JSON.stringify({ $flow: 'bigint', v: SECRET })));
    expect(error.message).toContain('interruptPayload cannot be decoded (SyntaxError)');
    expect(inspect(error, { depth: 5 })).not.toContain('sk-live');
  });

  it("a custom serializer's own error message is left out too; a JSON position is kept", () => {
    const leaky: Serializer = {
      serialize: (value) => JSON.stringify(value),
      deserialize: (text) => {
        throw new TypeError(`bad input: ${text}`);
      },
    };
    expect(decodeError(record(`"${SECRET}"`), leaky).message).toContain(
      'state cannot be decoded (TypeError)',
    );
    expect(
      redactDecodeError(new SyntaxError('Unexpected end of JSON input at position 12'), 'state').message,
    ).toBe('state cannot be decoded (SyntaxError at position 12)');
  });

  it('the redacted cause keeps the stack frames of the original', () => {
    const original = new SyntaxError(`Unexpected token in "${SECRET}"`);
    const redacted = redactDecodeError(original, 'state');
    expect(redacted.name).toBe('SyntaxError');
    expect(redacted.stack?.split('\n')[0]).toBe('SyntaxError: state cannot be decoded (SyntaxError)');
    expect(redacted.stack?.split('\n').slice(1)).toEqual(
      original.stack?.split('\n').filter((line) => /^\s+at /.test(line)),
    );
    expect(redacted.stack).not.toContain('sk-live');
  });
});
