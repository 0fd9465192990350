import { createHash, timingSafeEqual } from 'node:crypto';

const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();

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
    return timingSafeEqual(given, expected) && match !== null;
  };
}
