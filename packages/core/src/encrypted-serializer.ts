import { createCipheriv, createDecipheriv, hkdfSync, type KeyObject } from 'node:crypto';
import { DecryptionCache } from './decryption-cache.js';
import {
  associatedData,
  canonicalBytes,
  ENVELOPE_PREFIX,
  envelopeText,
  FORMAT_NULL,
  FORMAT_VALUE,
  header,
  headerText,
  IV_BYTES,
  nextIv,
  OPEN,
  placeJson,
  TAG_BYTES,
  valueIdLength,
} from './encrypted-envelope.js';
import { assertKeyId, importKeys, parseKeyList } from './encryption-keys.js';
import { CorruptCheckpointError, InvalidArgumentError, SerializationError } from './errors.js';
import { HmacSha256 } from './hmac-sha256.js';
import { jsonSerializer, type SerializeContext, type Serializer } from './serializer.js';

export { ENVELOPE_PREFIX };

/** A key as the serializer uses it: AES-256-GCM for values, and a key derived from it for null markers. */
interface KeyPair {
  aes: KeyObject;
  /** HMAC-SHA256 under HKDF-SHA256 of the AES key: the null markers' tags never use the encryption key itself. */
  nullMac: HmacSha256;
  /** The header of each format under this key, as `associatedData` takes it. */
  valueHead: string;
  nullHead: string;
}

const NULL_MAC_INFO = 'flow-enc null marker v2';

function keyPairs(keys: Map<string, KeyObject>): Map<string, KeyPair> {
  const pairs = new Map<string, KeyPair>();
  for (const [id, aes] of keys) {
    const derived = Buffer.from(hkdfSync('sha256', aes, Buffer.alloc(0), NULL_MAC_INFO, 32));
    pairs.set(id, {
      aes,
      nullMac: new HmacSha256(derived),
      valueHead: headerText(FORMAT_VALUE, id),
      nullHead: headerText(FORMAT_NULL, id),
    });
    derived.fill(0);
  }
  return pairs;
}

/** Where the bytes a null marker's tag covers are written: one buffer, not one per call. */
let macInput = Buffer.allocUnsafe(256);

/**
 * The HMAC-SHA256 tag of a null marker as words: its first four (16 bytes, the GCM tag's length) are the tag.
 * It covers exactly what `associatedData(head, place)` holds.
 */
function nullTag(key: KeyPair, place: string): Uint32Array {
  const text = key.nullHead + place;
  // A UTF-16 code unit takes at most 3 bytes of UTF-8.
  if (macInput.length < 3 * text.length) macInput = Buffer.allocUnsafe(3 * text.length);
  return key.nullMac.digest(macInput, macInput.write(text, 0));
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
  /**
   * Bytes of plaintext (with its envelope) kept in memory for values this serializer decrypted (not those it
   * encrypted), so reading the same envelope at the same place again skips the cipher; `0` turns it off. What stays in
   * memory, and for how long, is in docs/security.md. @default 4 MiB
   */
  cacheBytes?: number;
}

/** The default bound of the decryption cache. */
const DEFAULT_CACHE_BYTES = 4 * 1024 * 1024;

/** An encrypted serializer, with what a tool needs to tell envelopes apart. */
export interface EncryptedSerializer extends Serializer {
  /** The id of the key new values are encrypted with. */
  readonly current: string;
  /** The key id an envelope names, or `undefined` when `text` is not an envelope (plaintext). */
  keyIdOf(text: string): string | undefined;
}

function placeText(context: SerializeContext | undefined): string {
  if (context === undefined) return 'a value with no place';
  if (context.field === 'chunk')
    return `thread ${JSON.stringify(context.thread)} chunk ${JSON.stringify(context.chunk)}`;
  const what =
    context.field === 'write' ? `write ${JSON.stringify([context.node, context.key])}` : context.field;
  return `thread ${JSON.stringify(context.thread)} step ${context.step} ${what}`;
}

function requireContext(context: SerializeContext | undefined, verb: string): SerializeContext {
  if (
    context === undefined ||
    typeof context.thread !== 'string' ||
    typeof context.step !== 'number' ||
    (context.field === 'chunk' && typeof context.chunk !== 'string')
  ) {
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
 * of a write) authenticated as associated data. `null` (the interrupt payload of nearly every checkpoint) is
 * stored as an authenticated marker bound to its place instead: the same refusal of anything altered or moved,
 * at a fraction of a cipher's cost. A record that fails authentication, names an unknown key,
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
  const keys = keyPairs(importKeys(options.keys, options.current));
  const current = options.current;
  const currentKey = keys.get(current) as KeyPair;
  /** A value envelope's header and IV: the IV drawn into it for each value (the cipher copies it). */
  const valuePrefix = Buffer.concat([header(FORMAT_VALUE, current), Buffer.alloc(IV_BYTES)]);
  const valueIv = valuePrefix.subarray(valuePrefix.length - IV_BYTES);
  const nullHeader = header(FORMAT_NULL, current);
  const inner = options.inner ?? jsonSerializer;
  if (
    typeof inner !== 'object' ||
    inner === null ||
    typeof inner.serialize !== 'function' ||
    typeof inner.deserialize !== 'function'
  ) {
    throw new InvalidArgumentError('inner must be a serializer: { serialize(value), deserialize(text) }');
  }
  // A string such as 'false' or '1' from the environment must not be taken either way without a word.
  if (options.allowPlaintext !== undefined && typeof options.allowPlaintext !== 'boolean') {
    throw new InvalidArgumentError(
      `allowPlaintext must be true or false, got ${typeof options.allowPlaintext === 'string' ? JSON.stringify(options.allowPlaintext) : typeof options.allowPlaintext}`,
    );
  }
  const allowPlaintext = options.allowPlaintext === true;
  const cacheBytes = options.cacheBytes ?? DEFAULT_CACHE_BYTES;
  if (!Number.isSafeInteger(cacheBytes) || cacheBytes < 0) {
    throw new InvalidArgumentError(
      `cacheBytes must be a whole number of bytes ≥ 0, got ${String(cacheBytes)}`,
    );
  }
  const cache = cacheBytes === 0 ? undefined : new DecryptionCache(cacheBytes);

  function refuse(context: SerializeContext | undefined, detail: string): never {
    throw new CorruptCheckpointError(placeText(context), detail);
  }

  function unauthentic(place: SerializeContext, keyId: string): never {
    refuse(
      place,
      `authentication failed under key ${JSON.stringify(keyId)}: the record was altered, ` +
        'moved from another thread, step, field or chunk id, or encrypted with another key of the same id',
    );
  }

  /** The bytes of a text that starts like an envelope. */
  function open(text: string, context: SerializeContext | undefined): Buffer {
    const bytes = text.endsWith('"') ? canonicalBytes(text.slice(OPEN.length, -1)) : undefined;
    if (bytes === undefined) refuse(context, 'malformed encrypted envelope');
    return bytes;
  }

  /** A null marker's bytes: the header, then the tag written in for each marker. */
  const marker = Buffer.concat([nullHeader, Buffer.alloc(TAG_BYTES)]);
  function encryptNull(place: string): string {
    const tag = nullTag(currentKey, place);
    for (let i = 0; i < TAG_BYTES / 4; i++) marker.writeUInt32BE(tag[i]!, nullHeader.length + 4 * i);
    return envelopeText(marker);
  }

  function decode(plain: string, context: SerializeContext): unknown {
    try {
      return inner.deserialize(plain, context);
    } catch (error) {
      // Authenticated but not decodable: the inner serializer's message may quote the plaintext; drop it.
      const name = error instanceof Error ? error.name : 'Error';
      refuse(context, `the decrypted value cannot be decoded by the inner serializer (${name})`);
    }
  }

  /** The plaintext text of an authenticated envelope (`null` for a null marker). */
  function decrypt(bytes: Buffer, context: SerializeContext, place: string): string | null {
    const format = bytes[0];
    if (format !== FORMAT_VALUE && format !== FORMAT_NULL) {
      refuse(context, `unknown encrypted envelope version ${format}`);
    }
    const headLength = 2 + (bytes[1] ?? 0);
    const size = format === FORMAT_VALUE ? headLength + IV_BYTES + TAG_BYTES : headLength + TAG_BYTES;
    if (format === FORMAT_VALUE ? bytes.length < size : bytes.length !== size) {
      refuse(context, 'truncated encrypted envelope');
    }
    const keyId = bytes.toString('utf8', 2, headLength);
    const key = keys.get(keyId);
    if (key === undefined) {
      let named = 'an unreadable key id';
      try {
        assertKeyId(keyId);
        named = `key id ${JSON.stringify(keyId)}`;
      } catch {}
      refuse(context, `encrypted with ${named}, which is not among the keys`);
    }
    // A known key id is ASCII, so the envelope's header bytes are exactly the key's header of this format.
    if (format === FORMAT_NULL) {
      const tag = nullTag(key, place);
      // Every word compared, whatever differs first: the time taken says nothing about the tag.
      let differ = 0;
      for (let i = 0; i < TAG_BYTES / 4; i++) differ |= tag[i]! ^ bytes.readUInt32BE(headLength + 4 * i);
      if (differ !== 0) unauthentic(context, keyId);
      return null;
    }
    const decipher = createDecipheriv(
      'aes-256-gcm',
      key.aes,
      bytes.subarray(headLength, headLength + IV_BYTES),
    );
    decipher.setAAD(associatedData(key.valueHead, place));
    decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
    try {
      const head = decipher.update(bytes.subarray(headLength + IV_BYTES, bytes.length - TAG_BYTES));
      // GCM's final yields no bytes; it checks the tag, and nothing is decoded before it has.
      const tail = decipher.final();
      return (tail.length === 0 ? head : Buffer.concat([head, tail])).toString();
    } catch {
      unauthentic(context, keyId);
    }
  }

  return {
    current,

    keyIdOf(text: string): string | undefined {
      if (!text.startsWith(OPEN)) return undefined;
      const bytes = open(text, undefined);
      if (bytes.length < 2) return undefined;
      return bytes.toString('utf8', 2, 2 + bytes[1]!);
    },

    wrappedLength(text: string): number {
      // A value envelope's ciphertext is exactly as long as the inner text's UTF-8, which is at least its
      // length in UTF-16 code units; the header, IV and tag around it are counted out.
      const idLength = valueIdLength(text);
      if (idLength === undefined) return text.length;
      const bytes = ((text.length - OPEN.length - 1) * 3) >> 2;
      return Math.max(0, bytes - 2 - idLength - IV_BYTES - TAG_BYTES);
    },

    serialize(value: unknown, context?: SerializeContext): string {
      const at = requireContext(context, 'encrypt');
      const place = placeJson(at);
      if (value === null) {
        return encryptNull(place);
      }
      const text = inner.serialize(value, at);
      if (!text.isWellFormed()) throw new SerializationError('the inner serializer emitted a lone surrogate');
      nextIv(valueIv);
      const cipher = createCipheriv('aes-256-gcm', currentKey.aes, valueIv);
      cipher.setAAD(associatedData(currentKey.valueHead, place));
      // The text goes in as a string: the cipher call encodes it, with no Buffer of the plaintext made for it.
      const body = cipher.update(text, 'utf8');
      const tail = cipher.final(); // GCM's final yields no bytes; kept so that nothing could be lost
      // Not put in the decryption cache: a running engine never reads back the steps it writes, so holding
      // them would cost every put for reads that mostly never come (the cache fills as values are read).
      return envelopeText(Buffer.concat([valuePrefix, body, tail, cipher.getAuthTag()]));
    },

    deserialize(text: string, context?: SerializeContext): unknown {
      if (!text.startsWith(OPEN)) {
        if (!allowPlaintext) {
          refuse(
            context,
            'not encrypted (a plaintext record; allowPlaintext: true reads it while migrating)',
          );
        }
        return inner.deserialize(text, context);
      }
      const at = requireContext(context, 'decrypt');
      // Only authenticated envelopes are held, each with its place: a hit is the same text at the same place.
      const held = cache?.get(text, at);
      if (held !== undefined) return held === null ? null : decode(held, at);
      const plain = decrypt(open(text, at), at, placeJson(at));
      const value = plain === null ? null : decode(plain, at);
      cache?.set(text, at, plain);
      return value;
    },
  };
}

/**
 * The encrypted serializer the `FLOW_KEYS` environment variable asks for, or `undefined` when it is unset.
 * `FLOW_KEYS` is `id:base64key[,id:base64key...]` (32-byte keys, standard base64); the first key encrypts
 * unless `FLOW_KEY_CURRENT` names another; `FLOW_ALLOW_PLAINTEXT=1` reads unencrypted records while
 * migrating; `FLOW_DECRYPT_CACHE_BYTES` bounds the decryption cache (`0` turns it off). The `flow` command and the server both call this, so they read the same stores.
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
  const cache = env.FLOW_DECRYPT_CACHE_BYTES?.trim();
  if (cache === undefined || cache === '') return encryptedSerializer({ keys, current, allowPlaintext });
  if (!/^\d+$/.test(cache)) {
    throw new InvalidArgumentError(
      `FLOW_DECRYPT_CACHE_BYTES must be a number of bytes, got ${JSON.stringify(cache)}`,
    );
  }
  return encryptedSerializer({ keys, current, allowPlaintext, cacheBytes: Number(cache) });
}
