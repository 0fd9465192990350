import { randomFillSync } from 'node:crypto';
import { isKeyId } from './encryption-keys.js';
import type { SerializeContext } from './serializer.js';

/**
 * The stored form of an encrypted value is a JSON string (so Postgres can keep it as JSONB, and every backend
 * stores it unchanged): `"flow-enc:" + base64url(bytes)`, where `bytes` starts with a format byte, the key id's
 * length and the key id. Two formats (docs/security.md):
 *
 * - 1, a value: `1 · idLength · keyId · iv(12) · AES-256-GCM ciphertext · tag(16)`;
 * - 2, null: `2 · idLength · keyId · tag(16)`, an HMAC-SHA256 tag (cut to 16 bytes) under a key derived from
 *   the encryption key — no cipher and no IV, since there is nothing to hide, only a place to vouch for.
 *
 * Both authenticate the header and the value's place (thread, step, field, and node and key of a write; thread
 * and id for a chunk).
 */
export const ENVELOPE_PREFIX = 'flow-enc:';
export const OPEN = `"${ENVELOPE_PREFIX}`;
export const FORMAT_VALUE = 1;
export const FORMAT_NULL = 2;
export const IV_BYTES = 12;
export const TAG_BYTES = 16;

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/**
 * The bytes of `body` when it is the one canonical unpadded base64url text of them, else `undefined`.
 * Node's decoder skips characters outside the alphabet, reads `+` and `/` like `-` and `_`, and non-ASCII
 * characters by their low byte; so the text must be ASCII without `+` or `/`, decode to the length its own
 * length implies (nothing was skipped), not be 1 mod 4 long, and leave the last character's spare bits zero
 * (a flipped spare bit would otherwise decode to the same bytes). Cheaper than a regular expression over the
 * whole text, which cost more than the decryption of a 2 KB state.
 */
export function canonicalBytes(body: string): Buffer | undefined {
  const rest = body.length % 4;
  if (rest === 1 || body.length === 0) return undefined;
  if (Buffer.byteLength(body) !== body.length || body.includes('+') || body.includes('/')) return undefined;
  if (rest !== 0) {
    const last = ALPHABET.indexOf(body[body.length - 1]!);
    if (last < 0 || (last & (rest === 2 ? 0b1111 : 0b11)) !== 0) return undefined;
  }
  const bytes = Buffer.from(body, 'base64url');
  return bytes.length === (body.length * 3) >> 2 ? bytes : undefined;
}

/**
 * The key id's length in a text that starts like a value envelope, read off the first three base64url characters
 * (format byte, then id length): `undefined` when they are not base64url or name another format. No Buffer is
 * made: every encrypted put asks.
 */
export function valueIdLength(text: string): number | undefined {
  if (!text.startsWith(OPEN) || text.length < OPEN.length + 5) return undefined;
  const a = ALPHABET.indexOf(text.charAt(OPEN.length));
  const b = ALPHABET.indexOf(text.charAt(OPEN.length + 1));
  const c = ALPHABET.indexOf(text.charAt(OPEN.length + 2));
  if (a < 0 || b < 0 || c < 0 || ((a << 2) | (b >> 4)) !== FORMAT_VALUE) return undefined;
  return ((b & 15) << 4) | (c >> 2);
}

/** An envelope's text: the prefix and base64url inside a JSON string. */
const ENVELOPE_TEXT = new RegExp(`^${OPEN}([A-Za-z0-9_-]+)"$`);

/**
 * The key id a stored text's envelope names, read without any key, or `undefined` when the text is not one: a
 * format byte (value or null), the id's length, an id of key-id characters, and at least a tag after it. The
 * `flow` command uses it to say which key an encrypted store needs when `FLOW_KEYS` is not set.
 */
export function envelopeKeyId(text: string): string | undefined {
  if (!text.startsWith(OPEN)) return undefined;
  const body = ENVELOPE_TEXT.exec(text)?.[1];
  if (body === undefined) return undefined;
  const bytes = Buffer.from(body, 'base64url');
  const length = bytes[1] ?? 0;
  const format = bytes[0];
  if ((format !== FORMAT_VALUE && format !== FORMAT_NULL) || length < 1) return undefined;
  if (bytes.length < 2 + length + TAG_BYTES) return undefined;
  const id = bytes.toString('utf8', 2, 2 + length);
  return isKeyId(id) ? id : undefined;
}

/** The envelope text of `bytes`. */
export function envelopeText(bytes: Buffer): string {
  return `${OPEN}${bytes.toString('base64url')}"`;
}

/**
 * `format · idLength · keyId`, the header every envelope of a key starts with, as text: key ids are ASCII
 * (`assertKeyId`) and both bytes are below 0x80, so its UTF-8 bytes are the header's bytes.
 */
export function headerText(format: number, keyId: string): string {
  return String.fromCharCode(format, keyId.length) + keyId;
}

/** The header's bytes. */
export function header(format: number, keyId: string): Buffer {
  return Buffer.from(headerText(format, keyId));
}

/**
 * The place of a value as JSON text (a JSON array, so a thread id can never be spliced into the step): the
 * part of its associated data after the header, and what the decryption cache compares. A chunk's place is
 * `[thread, "chunk", id]`, which no other field's array can equal (their second element is a number).
 */
export function placeJson(context: SerializeContext): string {
  // A chunk is shared by every later step of its thread: it is bound to the thread and its id, not a step.
  return context.field === 'chunk'
    ? JSON.stringify([context.thread, 'chunk', context.chunk ?? null])
    : JSON.stringify([
        context.thread,
        context.step,
        context.field,
        context.node ?? null,
        context.key ?? null,
      ]);
}

/**
 * The associated data of a value: its envelope's header, then its place (`placeJson`). Format 1 has always used
 * exactly these bytes. Built as one string and encoded once: it is made for every value written or read.
 */
export function associatedData(head: string, place: string): Buffer {
  return Buffer.from(head + place);
}

/**
 * Random IVs, drawn from the CSPRNG in batches (one call per value costs more than the encryption of a small
 * value). Each IV is handed out once; a process never shares its pool (workers and children draw their own).
 */
const IV_BATCH = 1024;
let ivPool = Buffer.alloc(0);
let ivAt = 0;
export function nextIv(into: Buffer): void {
  if (ivAt === ivPool.length) {
    ivPool = randomFillSync(Buffer.allocUnsafe(IV_BYTES * IV_BATCH));
    ivAt = 0;
  }
  ivPool.copy(into, 0, ivAt, ivAt + IV_BYTES);
  ivAt += IV_BYTES;
}
