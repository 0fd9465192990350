import * as crypto from 'node:crypto';

/** SHA-256 of a text: the one-shot `crypto.hash` where Node has it (20.12+), a third of `createHash`'s cost. */
const digest: (text: string) => Buffer =
  typeof crypto.hash === 'function'
    ? (text) => crypto.hash('sha256', text, 'buffer')
    : (text) => crypto.createHash('sha256').update(text, 'utf8').digest();

/**
 * A check of `Authorization: Bearer <token>`. Both sides are hashed first, so the comparison takes the same
 * time whatever the length or content of what was sent.
 */
export function bearerCheck(token: string): (authorization: string | null) => boolean {
  const expected = digest(token);
  return (authorization) => {
    const match = authorization === null ? null : /^Bearer +(\S+) *$/i.exec(authorization);
    const given = digest(match?.[1] ?? '');
    // Compare even when the header is absent or malformed, so every refusal costs the same.
    return crypto.timingSafeEqual(given, expected) && match !== null;
  };
}
