import { type FlowErrorCode, isFlowError } from '@flow/core';
import { expect } from 'vitest';

/** The class name each stable code belongs to (docs/protocol.md, "Errors"). */
const NAMES: Partial<Record<FlowErrorCode, string>> = {
  CHECKPOINT_CONFLICT: 'CheckpointConflict',
  INVALID_ARGUMENT: 'InvalidArgumentError',
  SERIALIZATION: 'SerializationError',
  CORRUPT_CHECKPOINT: 'CorruptCheckpointError',
  STORAGE: 'StorageError',
};

/**
 * Calls `call` and expects it to reject (not throw synchronously) with a @flow error of `code` and its
 * class `name`. Returns the error for further checks. `what` names the call in the failure message.
 */
export async function expectFlowError(
  call: () => Promise<unknown>,
  code: FlowErrorCode,
  what: string,
): Promise<Error & Record<string, unknown>> {
  let promise: Promise<unknown>;
  try {
    promise = call();
  } catch (error) {
    throw new Error(`${what} threw synchronously instead of returning a rejected promise: ${String(error)}`);
  }
  let settled: { value: unknown } | { error: unknown };
  try {
    settled = { value: await promise };
  } catch (error) {
    settled = { error };
  }
  if ('value' in settled) {
    expect.fail(
      `${what} resolved with ${describeValue(settled.value)}; expected a rejection with code ${code}`,
    );
  }
  const error = settled.error;
  expect(error, `${what} rejected with a non-Error`).toBeInstanceOf(Error);
  const e = error as Error & Record<string, unknown>;
  expect({ code: e.code, name: e.name }, `${what} rejected with: ${e.message}`).toEqual({
    code,
    name: NAMES[code],
  });
  expect(isFlowError(e, code), `${what}: isFlowError(error, '${code}')`).toBe(true);
  return e;
}

function describeValue(value: unknown): string {
  if (value === undefined) return 'undefined';
  try {
    const text = JSON.stringify(value);
    return text.length > 120 ? `${text.slice(0, 120)}…` : text;
  } catch {
    return String(value);
  }
}
