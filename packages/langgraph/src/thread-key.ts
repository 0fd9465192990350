import { createHash } from 'node:crypto';
import { MAX_THREAD_LENGTH } from '@flow/core';

/**
 * How a LangGraph (thread_id, checkpoint_ns) becomes one @flow thread id (docs/langgraph.md#thread-ids):
 *
 * - the root namespace of a thread id that is a valid @flow thread id not starting with `lg:` or `lg#`: the
 *   thread id itself, so `flow threads` shows LangGraph's own names;
 * - otherwise `lg:` + the JSON text of `[thread_id, checkpoint_ns]`, which escapes U+0000 and lone surrogates;
 * - when that is longer than a @flow thread id may be: `lg#` + a hash of the thread id + `.` + a hash of the
 *   namespace. Every record also carries its thread id and namespace, so this form is read back from them.
 *
 * The three forms never collide: only the first can lack the `lg:`/`lg#` prefix, and it never has it.
 */
export function flowThreadOf(threadId: string, ns: string): string {
  if (ns === '' && isPlainThreadId(threadId)) return threadId;
  const json = `lg:${JSON.stringify([threadId, ns])}`;
  if (json.length <= MAX_THREAD_LENGTH) return json;
  return `${hashedPrefix(threadId)}${hash(ns)}`;
}

/** The (thread_id, checkpoint_ns) a @flow thread id names, when the id alone says it (not the hashed form). */
export function parseFlowThread(thread: string): { threadId: string; ns: string } | undefined {
  if (thread.startsWith('lg:')) {
    try {
      const parsed = JSON.parse(thread.slice(3)) as unknown;
      if (Array.isArray(parsed) && typeof parsed[0] === 'string' && typeof parsed[1] === 'string')
        return { threadId: parsed[0], ns: parsed[1] };
    } catch {
      return undefined;
    }
    return undefined;
  }
  if (thread.startsWith('lg#')) return undefined;
  return { threadId: thread, ns: '' };
}

/**
 * The id prefixes under which every namespace of `threadId` other than the plain root form lives, for
 * `deleteThread` and `list` without a namespace (code-point ranges of `listThreads`).
 */
export function namespacePrefixes(threadId: string): string[] {
  return [`lg:[${JSON.stringify(threadId)},`, hashedPrefix(threadId)];
}

function isPlainThreadId(id: string): boolean {
  return (
    id.length > 0 &&
    id.length <= MAX_THREAD_LENGTH &&
    !id.includes('\u0000') &&
    id.isWellFormed() &&
    !id.startsWith('lg:') &&
    !id.startsWith('lg#')
  );
}

function hashedPrefix(threadId: string): string {
  return `lg#${hash(threadId)}.`;
}

function hash(text: string): string {
  // JSON text first: it escapes a lone surrogate, which UTF-8 would turn into U+FFFD and hash alike.
  return createHash('sha256').update(JSON.stringify(text)).digest('base64url');
}
