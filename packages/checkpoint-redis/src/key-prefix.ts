import { describeValue, flowPrefix, InvalidArgumentError } from '@flow/core';

const KEY_PREFIX = /^[A-Za-z0-9_:.-]{1,64}$/;

/**
 * Checks a key prefix against `/^[A-Za-z0-9_:.-]{1,64}$/`: no glob characters, no `|` (it ends a key's kind) and
 * no `{`/`}` (a cluster hash tag is ours to place).
 */
export function assertKeyPrefix(keyPrefix: unknown): asserts keyPrefix is string {
  if (typeof keyPrefix !== 'string' || !KEY_PREFIX.test(keyPrefix)) {
    throw new InvalidArgumentError(
      `${flowPrefix('redis')}prefix must match ${KEY_PREFIX} (1–64 letters, digits, _ : . -), got ${describeValue(keyPrefix)}`,
    );
  }
}
