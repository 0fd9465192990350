import { createHmac, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { HmacSha256 } from '../src/hmac-sha256.js';

/** The words' bytes, big-endian: the tag as createHmac writes it. */
function bytesOf(words: Uint32Array): Buffer {
  const out = Buffer.alloc(32);
  for (let i = 0; i < 8; i++) out.writeUInt32BE(words[i]!, 4 * i);
  return out;
}

describe('HmacSha256', () => {
  it("gives node:crypto's HMAC-SHA256 for every message length from 0 to 300 bytes and keys of 0 to 64", () => {
    // Every way the padding falls: one tail block, two (55 and 56 bytes), whole blocks, several blocks.
    for (let length = 0; length <= 300; length++) {
      const key = randomBytes(length % 65);
      const message = randomBytes(length);
      const expected = createHmac('sha256', key).update(message).digest();
      expect(bytesOf(new HmacSha256(key).digest(message, length)), `length ${length}`).toEqual(expected);
    }
  });

  it('hashes only the first `length` bytes, and one instance gives the same tag each call', () => {
    const key = randomBytes(32);
    const mac = new HmacSha256(key);
    const buffer = Buffer.concat([
      Buffer.from('["order-42",3,"interruptPayload",null,null]'),
      randomBytes(40),
    ]);
    const expected = createHmac('sha256', key).update(buffer.subarray(0, 44)).digest();
    for (let i = 0; i < 3; i++) expect(bytesOf(mac.digest(buffer, 44))).toEqual(expected);
  });

  it('refuses a key longer than a block (HMAC would hash it first; the serializer never needs that)', () => {
    expect(() => new HmacSha256(randomBytes(65))).toThrow(RangeError);
  });
});
