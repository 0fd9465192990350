import {
  type EncryptedSerializer,
  isFlowError,
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
