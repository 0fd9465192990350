import { createHash } from 'node:crypto';

/** How many readable characters of the id a directory name keeps. */
const READABLE_LENGTH = 40;
const SAFE = /^[A-Za-z0-9_-]$/;
/** `readable-prefix` + `-` + 64 lowercase hex digits of SHA-256. */
const THREAD_NAME = /^[A-Za-z0-9_-]{1,40}-[0-9a-f]{64}$/;

/**
 * The directory name of a thread: a readable prefix (letters, digits, `_`, `-`; anything else becomes `_`)
 * and the SHA-256 of the id's UTF-8 bytes in lowercase hex.
 *
 * Why this shape: the name can hold no `/`, `.` or `..`, so no id escapes the root; it is at most 105 bytes
 * whatever the id (a 512-character id would otherwise pass the 255-byte name limit); and the hash alone
 * tells ids apart, in lowercase hex, so ids that differ only in case (or `a/b` vs `a%2Fb`) stay apart on
 * case-insensitive file systems too. The real id is stored inside every file of the thread.
 *
 * @example threadName('order-42') // 'order-42-<64 hex digits>'
 */
export function threadName(thread: string): string {
  let readable = '';
  for (const ch of thread) {
    if (readable.length === READABLE_LENGTH) break;
    readable += SAFE.test(ch) ? ch : '_';
  }
  const hash = createHash('sha256').update(thread, 'utf8').digest('hex');
  return `${readable}-${hash}`;
}

/** Whether a directory entry looks like a thread directory (temp and trash entries start with `.`). */
export function isThreadName(name: string): boolean {
  return THREAD_NAME.test(name);
}
