import { createHash } from 'node:crypto';

/**
 * The primary-key part for (node, key): SHA-256 of node, U+0000, key. Neither may contain U+0000 (core
 * checks), so distinct pairs give distinct inputs; the full strings are kept in their own columns.
 */
export function writeHash(node: string, key: string): Buffer {
  return createHash('sha256').update(`${node}\u0000${key}`, 'utf8').digest();
}
