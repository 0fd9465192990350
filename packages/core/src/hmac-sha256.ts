/**
 * HMAC-SHA256 (RFC 2104 over FIPS 180-4's SHA-256) of short messages, in plain JavaScript, for the null markers'
 * tags. The same tags as `node:crypto`'s `createHmac('sha256', key)`; what it saves is the OpenSSL context that
 * call sets up every time (about 2 µs of CPU in a loop, 15–20 µs on the first call after a SQLite fsync, when
 * the CPU's caches are cold). The key's inner and outer pad blocks are hashed once, so a message of up to 55
 * bytes costs two compressions. SHA-256's rounds are additions, rotations and bitwise operations on 32-bit
 * words, with no table indexed by secret data, so the time taken does not depend on the key or the message.
 * Why not a library: @noble/hashes (audited) was measured for the same job, its keyed `hmac.create(sha256, key)`
 * cloned per tag: 2.8 µs of CPU per tag against `createHmac`'s 2.4 and this file's 0.9 (a loop of 200,000 tags of
 * a 55-byte place, Node 20); the clone allocates what this class keeps. Correctness is pinned against
 * `createHmac` in test/hmac-sha256.test.ts.
 */

const K = new Uint32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98,
  0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
  0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8,
  0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
  0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819,
  0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
  0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
  0xc67178f2,
]);
const IV = new Uint32Array([
  0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
]);
const BLOCK = 64;

/** The message schedule, reused by every compression (the serializer runs on one thread). */
const W = new Uint32Array(64);

/** One SHA-256 compression of the 64 bytes of `block` at `at` into `state`. */
function compress(state: Uint32Array, block: Uint8Array, at: number): void {
  for (let i = 0; i < 16; i++) {
    const j = at + 4 * i;
    W[i] = (block[j]! << 24) | (block[j + 1]! << 16) | (block[j + 2]! << 8) | block[j + 3]!;
  }
  for (let i = 16; i < 64; i++) {
    const a = W[i - 15]!;
    const b = W[i - 2]!;
    const s0 = ((a >>> 7) | (a << 25)) ^ ((a >>> 18) | (a << 14)) ^ (a >>> 3);
    const s1 = ((b >>> 17) | (b << 15)) ^ ((b >>> 19) | (b << 13)) ^ (b >>> 10);
    W[i] = (W[i - 16]! + s0 + W[i - 7]! + s1) | 0;
  }
  let a = state[0]!;
  let b = state[1]!;
  let c = state[2]!;
  let d = state[3]!;
  let e = state[4]!;
  let f = state[5]!;
  let g = state[6]!;
  let h = state[7]!;
  for (let i = 0; i < 64; i++) {
    const s1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
    const t1 = (h + s1 + ((e & f) ^ (~e & g)) + K[i]! + W[i]!) | 0;
    const s0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
    const t2 = (s0 + ((a & b) ^ (a & c) ^ (b & c))) | 0;
    h = g;
    g = f;
    f = e;
    e = (d + t1) | 0;
    d = c;
    c = b;
    b = a;
    a = (t1 + t2) | 0;
  }
  state[0] = (state[0]! + a) | 0;
  state[1] = (state[1]! + b) | 0;
  state[2] = (state[2]! + c) | 0;
  state[3] = (state[3]! + d) | 0;
  state[4] = (state[4]! + e) | 0;
  state[5] = (state[5]! + f) | 0;
  state[6] = (state[6]! + g) | 0;
  state[7] = (state[7]! + h) | 0;
}

/** Scratch for the padded tail of a message and for the outer block. */
const tailBlock = new Uint8Array(2 * BLOCK);
const work = new Uint32Array(8);
const innerHash = new Uint8Array(32);

/**
 * Hashes `bytes[0, length)` into `state`, which has already absorbed `prefix` bytes (a whole number of
 * blocks), and pads as SHA-256 does.
 */
function finish(state: Uint32Array, prefix: number, bytes: Uint8Array, length: number): void {
  let at = 0;
  for (; at + BLOCK <= length; at += BLOCK) compress(state, bytes, at);
  const rest = length - at;
  const blocks = rest + 9 <= BLOCK ? 1 : 2;
  tailBlock.fill(0, 0, blocks * BLOCK);
  for (let i = 0; i < rest; i++) tailBlock[i] = bytes[at + i]!;
  tailBlock[rest] = 0x80;
  // The length in bits, big-endian in the last 8 bytes; messages here stay far below 2^32 bits.
  const bits = (prefix + length) * 8;
  const end = blocks * BLOCK;
  tailBlock[end - 5] = Math.floor(bits / 2 ** 32) & 0xff;
  tailBlock[end - 4] = bits >>> 24;
  tailBlock[end - 3] = bits >>> 16;
  tailBlock[end - 2] = bits >>> 8;
  tailBlock[end - 1] = bits;
  compress(state, tailBlock, 0);
  if (blocks === 2) compress(state, tailBlock, BLOCK);
}

/** HMAC-SHA256 under one key, its pad blocks hashed once. */
export class HmacSha256 {
  /** The state after the key's inner (0x36) and outer (0x5c) pad blocks. */
  readonly #inner = new Uint32Array(8);
  readonly #outer = new Uint32Array(8);

  /** `key` of at most 64 bytes (the serializer's are 32); nothing of it is kept but the two states. */
  constructor(key: Uint8Array) {
    if (key.length > BLOCK) throw new RangeError('HmacSha256 takes keys of at most 64 bytes');
    const pad = new Uint8Array(BLOCK);
    for (const [state, byte] of [
      [this.#inner, 0x36],
      [this.#outer, 0x5c],
    ] as const) {
      pad.fill(byte);
      for (let i = 0; i < key.length; i++) pad[i] = key[i]! ^ byte;
      state.set(IV);
      compress(state, pad, 0);
    }
    pad.fill(0);
  }

  /**
   * The tag of `bytes[0, length)`: eight 32-bit words (the tag's bytes big-endian, as SHA-256 writes them),
   * in an array the next call overwrites.
   */
  digest(bytes: Uint8Array, length: number): Uint32Array {
    work.set(this.#inner);
    finish(work, BLOCK, bytes, length);
    // The outer message is the inner hash: 32 bytes after the outer pad block.
    for (let i = 0; i < 8; i++) {
      const w = work[i]!;
      innerHash[4 * i] = w >>> 24;
      innerHash[4 * i + 1] = w >>> 16;
      innerHash[4 * i + 2] = w >>> 8;
      innerHash[4 * i + 3] = w;
    }
    work.set(this.#outer);
    finish(work, BLOCK, innerHash, 32);
    return work;
  }
}
