import { createCipheriv, createDecipheriv, type KeyObject, randomFillSync } from 'node:crypto';
import { assertKeyId, importKeys, parseKeyList } from './encryption-keys.js';
import { CorruptCheckpointError, InvalidArgumentError, SerializationError } from './errors.js';
import { jsonSerializer, type SerializeContext, type Serializer } from './serializer.js';

/**
 * The stored form is a JSON string (so Postgres can keep it as JSONB, and every backend stores it unchanged):
 * `"flow-enc:" + base64url(version · idLength · keyId · iv · ciphertext · tag)`.
 */
export const ENVELOPE_PREFIX = 'flow-enc:';
const OPEN = `"${ENVELOPE_PREFIX}`;
const VERSION = 1;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const BASE64URL = /^[A-Za-z0-9_-]+$/;
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/**
 * Whether unpadded base64url text is the one canonical encoding of its bytes: a length that is not 1 mod 4,
 * and zero spare bits in the last character (a flipped spare bit would otherwise decode to the same bytes).
 */
function isCanonical(body: string): boolean {
  const rest = body.length % 4;
  if (rest === 1) return false;
  if (rest === 0) return true;
  const last = ALPHABET.indexOf(body[body.length - 1]!);
  return (last & (rest === 2 ? 0b1111 : 0b11)) === 0;
}

/**
 * Random IVs, drawn from the CSPRNG in batches (one call per value costs more than the encryption of a small
 * value). Each IV is handed out once; a process never shares its pool (workers and children draw their own).
 */
const IV_BATCH = 1024;
let ivPool = Buffer.alloc(0);
let ivAt = 0;
function nextIv(into: Buffer): void {
  if (ivAt === ivPool.length) {
    ivPool = randomFillSync(Buffer.allocUnsafe(IV_BYTES * IV_BATCH));
    ivAt = 0;
  }
  ivPool.copy(into, 0, ivAt, ivAt + IV_BYTES);
  ivAt += IV_BYTES;
}

/** Options of `encryptedSerializer`. */
export interface EncryptedSerializerOptions {
  /** Key ids mapped to 32-byte keys (`Uint8Array` or `Buffer`). Every key decrypts. */
  keys: Readonly<Record<string, Uint8Array>> | ReadonlyMap<string, Uint8Array>;
  /** The id of the key that encrypts new values. */
  current: string;
  /** What turns values into text before encryption. @default jsonSerializer */
  inner?: Serializer;
  /**
   * Read records that are not encrypted (written before encryption was turned on) instead of refusing them.
   * For migrating only: with it, anyone who can write the store can plant a plaintext value. @default false
   */
  allowPlaintext?: boolean;
}

/** An encrypted serializer, with what a tool needs to tell envelopes apart. */
export interface EncryptedSerializer extends Serializer {
  /** The id of the key new values are encrypted with. */
  readonly current: string;
  /** The key id an envelope names, or `undefined` when `text` is not an envelope (plaintext). */
  keyIdOf(text: string): string | undefined;
}

/** The place a value is bound to, as associated data: a record moved elsewhere fails authentication. */
function placeBytes(context: SerializeContext): Buffer {
  return Buffer.from(
    JSON.stringify([context.thread, context.step, context.field, context.node ?? null, context.key ?? null]),
  );
}

function placeText(context: SerializeContext | undefined): string {
  if (context === undefined) return 'a value with no place';
  const what =
    context.field === 'write' ? `write ${JSON.stringify([context.node, context.key])}` : context.field;
  return `thread ${JSON.stringify(context.thread)} step ${context.step} ${what}`;
}

function header(keyId: string): Buffer {
  const id = Buffer.from(keyId);
  const head = Buffer.allocUnsafe(2 + id.length);
  head[0] = VERSION;
  head[1] = id.length;
  id.copy(head, 2);
  return head;
}

function requireContext(context: SerializeContext | undefined, verb: string): SerializeContext {
  if (context === undefined || typeof context.thread !== 'string' || typeof context.step !== 'number') {
    throw new SerializationError(
      `the encrypted serializer cannot ${verb} a value without its place (thread, step, field): ` +
        'it binds every value to where it is stored',
    );
  }
  return context;
}

/**
 * A serializer that encrypts every value with AES-256-GCM (`node:crypto`): a random 96-bit IV per value, the
 * key id and a format version in the envelope, and the value's place (thread, step, field, and node and key
 * of a write) authenticated as associated data. A record that fails authentication, names an unknown key,
 * or is plaintext (without `allowPlaintext`) is a `CorruptCheckpointError`; it never yields plaintext.
 * See docs/security.md for what is encrypted and what stays visible.
 *
 * @example
 * const serializer = encryptedSerializer({ keys: { k2: key2, k1: key1 }, current: 'k2' });
 * const store = new SqliteCheckpointer('flow.db', { serializer });
 */
export function encryptedSerializer(options: EncryptedSerializerOptions): EncryptedSerializer {
  if (typeof options !== 'object' || options === null) {
    throw new InvalidArgumentError('encryptedSerializer needs { keys, current }');
  }
  const keys = importKeys(options.keys, options.current);
  const current = options.current;
  const currentKey = keys.get(current) as KeyObject;
  const currentHeader = header(current);
  const inner = options.inner ?? jsonSerializer;
  const allowPlaintext = options.allowPlaintext === true;

  function refuse(context: SerializeContext | undefined, detail: string): never {
    throw new CorruptCheckpointError(placeText(context), detail);
  }

  function open(text: string, context: SerializeContext | undefined): Buffer | undefined {
    if (!text.startsWith(OPEN)) return undefined;
    const body = text.slice(OPEN.length, -1);
    if (!text.endsWith('"') || !BASE64URL.test(body)) refuse(context, 'malformed encrypted envelope');
    if (!isCanonical(body)) refuse(context, 'malformed encrypted envelope');
    return Buffer.from(body, 'base64url');
  }

  return {
    current,

    keyIdOf(text: string): string | undefined {
      const bytes = open(text, undefined);
      if (bytes === undefined || bytes.length < 2) return undefined;
      return bytes.subarray(2, 2 + bytes[1]!).toString();
    },

    serialize(value: unknown, context?: SerializeContext): string {
      const place = requireContext(context, 'encrypt');
      const text = inner.serialize(value, place);
      if (!text.isWellFormed()) throw new SerializationError('the inner serializer emitted a lone surrogate');
      const plain = Buffer.from(text);
      const out = Buffer.allocUnsafe(currentHeader.length + IV_BYTES + plain.length + TAG_BYTES);
      currentHeader.copy(out, 0);
      const iv = out.subarray(currentHeader.length, currentHeader.length + IV_BYTES);
      nextIv(iv);
      const cipher = createCipheriv('aes-256-gcm', currentKey, iv);
      cipher.setAAD(Buffer.concat([currentHeader, placeBytes(place)]));
      let at = currentHeader.length + IV_BYTES;
      at += cipher.update(plain).copy(out, at);
      at += cipher.final().copy(out, at);
      cipher.getAuthTag().copy(out, at);
      return `${OPEN}${out.toString('base64url')}"`;
    },

    deserialize(text: string, context?: SerializeContext): unknown {
      const bytes = open(text, context);
      if (bytes === undefined) {
        if (!allowPlaintext) {
          refuse(
            context,
            'not encrypted (a plaintext record; allowPlaintext: true reads it while migrating)',
          );
        }
        return inner.deserialize(text, context);
      }
      const place = requireContext(context, 'decrypt');
      if (bytes[0] !== VERSION) refuse(place, `unknown encrypted envelope version ${bytes[0]}`);
      const idLength = bytes[1] ?? 0;
      const ivAt = 2 + idLength;
      if (bytes.length < ivAt + IV_BYTES + TAG_BYTES) refuse(place, 'truncated encrypted envelope');
      const keyId = bytes.subarray(2, ivAt).toString();
      const key = keys.get(keyId);
      if (key === undefined) {
        let named = 'an unreadable key id';
        try {
          assertKeyId(keyId);
          named = `key id ${JSON.stringify(keyId)}`;
        } catch {}
        refuse(place, `encrypted with ${named}, which is not among the keys`);
      }
      const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(ivAt, ivAt + IV_BYTES));
      decipher.setAAD(Buffer.concat([bytes.subarray(0, ivAt), placeBytes(place)]));
      decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
      let plain: string;
      try {
        const head = decipher.update(bytes.subarray(ivAt + IV_BYTES, bytes.length - TAG_BYTES));
        plain = Buffer.concat([head, decipher.final()]).toString();
      } catch {
        refuse(
          place,
          `authentication failed under key ${JSON.stringify(keyId)}: the record was altered, ` +
            'moved from another thread, step or field, or encrypted with another key of the same id',
        );
      }
      try {
        return inner.deserialize(plain, place);
      } catch (error) {
        // Authenticated but not decodable: the inner serializer's message may quote the plaintext; drop it.
        const name = error instanceof Error ? error.name : 'Error';
        refuse(place, `the decrypted value cannot be decoded by the inner serializer (${name})`);
      }
    },
  };
}

/**
 * The encrypted serializer the `FLOW_KEYS` environment variable asks for, or `undefined` when it is unset.
 * `FLOW_KEYS` is `id:base64key[,id:base64key...]` (32-byte keys, standard base64); the first key encrypts
 * unless `FLOW_KEY_CURRENT` names another; `FLOW_ALLOW_PLAINTEXT=1` reads unencrypted records while
 * migrating. The `flow` command and the server both call this, so they read the same stores.
 *
 * @example
 * const serializer = serializerFromEnv(process.env); // undefined: the store is not encrypted
 */
export function serializerFromEnv(
  env: Readonly<Record<string, string | undefined>> = process.env,
  overrides: { allowPlaintext?: boolean } = {},
): EncryptedSerializer | undefined {
  const list = env.FLOW_KEYS;
  if (list === undefined || list.trim() === '') return undefined;
  const { keys, current } = parseKeyList(list, env.FLOW_KEY_CURRENT);
  const allowPlaintext =
    overrides.allowPlaintext ?? ['1', 'true', 'yes'].includes(env.FLOW_ALLOW_PLAINTEXT ?? '');
  return encryptedSerializer({ keys, current, allowPlaintext });
}
