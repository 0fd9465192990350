import {
  CorruptCheckpointError,
  type EncryptedSerializer,
  envelopeKeyId,
  isFlowError,
  jsonSerializer,
  type SerializeContext,
  type Serializer,
  serializerFromEnv,
} from '@flow/core';
import { UsageError } from '../errors.js';

/**
 * The serializer `FLOW_KEYS` asks for (see docs/security.md), or `undefined` for a plaintext store. A malformed
 * `FLOW_KEYS` is a usage error; its message names the key id, never key material.
 */
export function storeSerializer(
  env: Readonly<Record<string, string | undefined>>,
  overrides: { allowPlaintext?: boolean } = {},
): EncryptedSerializer | undefined {
  try {
    return serializerFromEnv(env, overrides);
  } catch (error) {
    if (isFlowError(error, 'INVALID_ARGUMENT')) throw new UsageError(error.message);
    throw error;
  }
}

function placeOf(ctx: SerializeContext | undefined): string {
  if (ctx === undefined) return 'a value';
  const at = `thread ${JSON.stringify(ctx.thread)}`;
  if (ctx.field === 'chunk') return `${at} chunk ${JSON.stringify(ctx.chunk)}`;
  return `${at} step ${ctx.step} ${ctx.field === 'write' ? `write ${JSON.stringify([ctx.node, ctx.key])}` : ctx.field}`;
}

/** What a refusal by `plaintextReader` says, in `CorruptCheckpointError#detail`. */
const NO_KEYS = 'FLOW_KEYS is not set';

/** Whether `error` is a value `plaintextReader` refused: the store is encrypted, not damaged. */
export function isEncryptedWithoutKeys(error: unknown): error is CorruptCheckpointError {
  return (
    isFlowError(error, 'CORRUPT_CHECKPOINT') &&
    typeof (error as CorruptCheckpointError).detail === 'string' &&
    (error as CorruptCheckpointError).detail.includes(NO_KEYS)
  );
}

/**
 * What the commands that read values use without `FLOW_KEYS`: the default serializer, except that a value
 * stored by `encryptedSerializer` is refused with a message saying to set `FLOW_KEYS`, instead of being shown
 * as its ciphertext (or, for a large state, failing as if the store were damaged).
 */
export const plaintextReader: Serializer = {
  serialize: (value, ctx) => jsonSerializer.serialize(value, ctx),
  deserialize: (text, ctx) => {
    const id = envelopeKeyId(text);
    if (id !== undefined) {
      throw new CorruptCheckpointError(
        placeOf(ctx),
        `encrypted under key id ${JSON.stringify(id)}, and ${NO_KEYS} (FLOW_KEYS=id:base64key,... reads it)`,
      );
    }
    return jsonSerializer.deserialize(text, ctx);
  },
};

/**
 * The serializer for a command that reads values: `FLOW_KEYS`'s, or without it `plaintextReader`. Commands that
 * write values into a store keep `storeSerializer` (the backend's default serializer without `FLOW_KEYS`).
 */
export function readingSerializer(env: Readonly<Record<string, string | undefined>>): Serializer {
  return storeSerializer(env) ?? plaintextReader;
}

/** Where a stored value sits, as a map key. */
function placeKey(ctx: SerializeContext): string {
  return JSON.stringify([ctx.thread, ctx.step, ctx.field, ctx.node ?? null, ctx.key ?? null]);
}

/** An encrypted serializer that remembers which key each value it read was under (`null`: plaintext). */
export interface KeyObserver {
  readonly serializer: Serializer;
  /** The key id the value at `ctx` was read under, `null` for plaintext, `undefined` when not read. */
  keyAt(ctx: SerializeContext): string | null | undefined;
  /** Forgets what was read (call per checkpoint, so memory stays bounded). */
  clear(): void;
}

/** Wraps `inner` so a command can tell values already under the current key from those to rewrite. */
export function observeKeys(inner: EncryptedSerializer): KeyObserver {
  const seen = new Map<string, string | null>();
  return {
    serializer: {
      serialize: (value, ctx) => inner.serialize(value, ctx),
      deserialize: (text, ctx) => {
        const value = inner.deserialize(text, ctx);
        if (ctx !== undefined) seen.set(placeKey(ctx), inner.keyIdOf(text) ?? null);
        return value;
      },
    },
    keyAt: (ctx) => seen.get(placeKey(ctx)),
    clear: () => seen.clear(),
  };
}
