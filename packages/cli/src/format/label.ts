import { truncateToWidth } from './width.js';

// Control characters, line/paragraph separators and bidi overrides could break or disguise a table row.
const UNSAFE = /[\p{Cc}\u2028\u2029\u202a-\u202e\u2066-\u2069]|^\s|\s$/u;
// What JSON.stringify leaves raw but a terminal would still act on.
const RAW_AFTER_JSON = /[\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/**
 * A thread id as people see it in tables and messages: as is, or JSON-quoted with every control,
 * separator and bidi character escaped when it holds one (or starts or ends with whitespace), so an id
 * can never break a line or disguise itself.
 */
export function threadLabel(thread: string): string {
  if (!UNSAFE.test(thread)) return thread;
  return JSON.stringify(thread).replace(
    RAW_AFTER_JSON,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** The widest a thread id is shown in a table; longer ones are cut (the full id is in `--json`). */
export const TABLE_THREAD_WIDTH = 64;

/** A thread id for a table cell: `threadLabel`, cut to `TABLE_THREAD_WIDTH` columns with a `…`. */
export function tableThreadLabel(thread: string): string {
  return truncateToWidth(threadLabel(thread), TABLE_THREAD_WIDTH);
}

/** A message from a store (a run's error) for a table or a field: escaped like a thread id when it must be. */
export function messageLabel(text: string): string {
  return threadLabel(text);
}
