import { parseRunError, type RunError, type StatusFields, statusOf, type ThreadInfo } from './status.js';

/**
 * A thread's `listThreads` entry as one short text, which a backend stores with the thread's latest
 * checkpoint and hands back as it is: `<step> <status> <ts>`, and for a failed run ` <error JSON>` after it.
 * Listing thousands of threads then costs one stored value per thread, decoded with a few string searches,
 * instead of a column or field per `ThreadInfo` property and a JSON parse each (which made listing cost
 * several times a bare scan of thread ids). None of step, status and ts holds a space, so the error JSON,
 * last, may; the text holds no U+0000 (the error JSON escapes it), so a store may join it to a thread id
 * with one.
 */
export function threadSummaryOf(latest: StatusFields & { step: number; ts: string }): string {
  const status = statusOf(latest);
  const head = `${latest.step} ${status} ${latest.ts}`;
  if (status !== 'failed') return head;
  const error = typeof latest.error === 'string' ? latest.error : JSON.stringify(latest.error);
  return `${head} ${error}`;
}

/** Why a stored summary could not be read (never quoting it); the backend names where it was. */
export class UnreadableThreadSummary extends Error {}

const SPACE = 32;

/** The `ThreadInfo` of `thread` from the text `threadSummaryOf` made. Throws `UnreadableThreadSummary`. */
export function threadInfoFromSummary(thread: string, summary: string): ThreadInfo {
  const a = summary.indexOf(' ');
  const b = a === -1 ? -1 : summary.indexOf(' ', a + 1);
  if (b === -1) throw new UnreadableThreadSummary('the thread summary is malformed');
  const step = Number(summary.slice(0, a));
  const status = summary.slice(a + 1, b);
  const failed = status === 'failed';
  let end = summary.length;
  let error: RunError | null = null;
  if (failed) {
    end = summary.indexOf(' ', b + 1);
    if (end === -1) throw new UnreadableThreadSummary('a failed thread summary lacks its error');
    try {
      error = parseRunError(summary.slice(end + 1));
    } catch {
      throw new UnreadableThreadSummary('the error of a failed thread summary is not JSON');
    }
  } else if (status !== 'running' && status !== 'interrupted' && status !== 'done') {
    throw new UnreadableThreadSummary('the thread summary has an unknown status');
  }
  if (
    !Number.isInteger(step) ||
    step < 0 ||
    a === 0 ||
    end === b + 1 ||
    summary.charCodeAt(b + 1) === SPACE
  ) {
    throw new UnreadableThreadSummary('the thread summary is malformed');
  }
  return {
    thread,
    latestStep: step,
    interrupted: status === 'interrupted',
    done: status === 'done',
    failed,
    error,
    ts: summary.slice(b + 1, end),
  };
}
