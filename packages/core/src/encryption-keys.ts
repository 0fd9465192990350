import { createSecretKey, type KeyObject } from 'node:crypto';
import { InvalidArgumentError } from './errors.js';

/** Key ids: short, printable, and free of the separators `FLOW_KEYS` uses (`,` and `:`). */
const KEY_ID = /^[A-Za-z0-9_.-]{1,64}$/;

/** Whether `id` is a key id as `FLOW_KEYS` and `keys` accept it. */
export function isKeyId(id: string): boolean {
  return KEY_ID.test(id);
}
/** AES-256 takes 32-byte keys. */
export const KEY_BYTES = 32;

/** Checks a key id; the message names the id, which is not secret. */
export function assertKeyId(id: unknown, what = 'key id'): asserts id is string {
  if (typeof id !== 'string' || !KEY_ID.test(id)) {
    throw new InvalidArgumentError(
      `${what} ${JSON.stringify(id)} must be 1–64 characters of A–Z, a–z, 0–9, '_', '.' or '-'`,
    );
  }
}

/**
 * Validates `keys` and imports each into a `KeyObject` (a copy: changing the caller's buffer later changes
 * nothing, and printing the serializer never shows key material). Messages name the key id, never the key.
 */
export function importKeys(keys: unknown, current: unknown): Map<string, KeyObject> {
  if (typeof keys !== 'object' || keys === null || Array.isArray(keys)) {
    throw new InvalidArgumentError('keys must be an object mapping key ids to 32-byte keys');
  }
  const imported = new Map<string, KeyObject>();
  for (const [id, key] of keys instanceof Map ? keys : Object.entries(keys)) {
    assertKeyId(id);
    if (!(key instanceof Uint8Array)) {
      throw new InvalidArgumentError(
        `key ${JSON.stringify(id)} must be a Uint8Array (or Buffer) of 32 bytes`,
      );
    }
    if (key.byteLength !== KEY_BYTES) {
      throw new InvalidArgumentError(
        `key ${JSON.stringify(id)} must be ${KEY_BYTES} bytes (an AES-256 key), got ${key.byteLength}`,
      );
    }
    imported.set(id, createSecretKey(Buffer.from(key)));
  }
  if (imported.size === 0) throw new InvalidArgumentError('keys must hold at least one key');
  assertKeyId(current, 'current key id');
  if (!imported.has(current)) {
    throw new InvalidArgumentError(`current key id ${JSON.stringify(current)} is not one of keys`);
  }
  return imported;
}

/** Keys parsed from `FLOW_KEYS`. */
export interface ParsedKeys {
  keys: Record<string, Uint8Array>;
  current: string;
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * Parses the `FLOW_KEYS` format: `id:base64key[,id:base64key...]` (standard base64 of 32 bytes, as
 * `openssl rand -base64 32` prints). The first key is the current one unless `current` names another.
 * Errors name the key id or the entry's position, never key material.
 *
 * @example
 * parseKeyList('2025-06:q83v...=,2024-01:Zm9v...=') // { current: '2025-06', keys: { ... } }
 */
export function parseKeyList(text: string, current?: string): ParsedKeys {
  const keys: Record<string, Uint8Array> = {};
  const entries = text
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e !== '');
  if (entries.length === 0)
    throw new InvalidArgumentError('FLOW_KEYS holds no key (format: id:base64key,...)');
  entries.forEach((entry, index) => {
    const colon = entry.indexOf(':');
    if (colon <= 0) {
      throw new InvalidArgumentError(`FLOW_KEYS entry ${index + 1} must be id:base64key`);
    }
    const id = entry.slice(0, colon);
    const encoded = entry.slice(colon + 1);
    assertKeyId(id, 'FLOW_KEYS key id');
    if (Object.hasOwn(keys, id))
      throw new InvalidArgumentError(`FLOW_KEYS names key ${JSON.stringify(id)} twice`);
    const bytes = Buffer.from(encoded, 'base64');
    if (!BASE64.test(encoded) || bytes.toString('base64') !== encoded) {
      throw new InvalidArgumentError(`FLOW_KEYS key ${JSON.stringify(id)} is not valid base64`);
    }
    if (bytes.byteLength !== KEY_BYTES) {
      throw new InvalidArgumentError(
        `FLOW_KEYS key ${JSON.stringify(id)} must decode to ${KEY_BYTES} bytes, got ${bytes.byteLength}`,
      );
    }
    keys[id] = bytes;
  });
  const chosen =
    current === undefined || current === '' ? entries[0]!.slice(0, entries[0]!.indexOf(':')) : current;
  if (!Object.hasOwn(keys, chosen)) {
    throw new InvalidArgumentError(
      `FLOW_KEY_CURRENT ${JSON.stringify(chosen)} is not one of the FLOW_KEYS ids`,
    );
  }
  return { keys, current: chosen };
}
