// Control characters, line/paragraph separators and bidi overrides could break or disguise a table row.
const UNSAFE = /[\p{Cc}\u2028\u2029\u202a-\u202e\u2066-\u2069]|^\s|\s$/u;

/**
 * A thread id as people see it in tables and messages: as is, or JSON-quoted when it holds characters
 * that would break a line or disguise the text (newlines, escapes, bidi overrides, edge whitespace).
 */
export function threadLabel(thread: string): string {
  return UNSAFE.test(thread) ? JSON.stringify(thread) : thread;
}
