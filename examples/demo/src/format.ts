import { relative } from 'node:path';
import type { Checkpoint } from '@flow/core';
import type { StreamEvent } from '@flow/graph';
import type { PostState } from './pipeline.js';

const pad = (text: string, width: number) =>
  text.length >= width ? text : text + ' '.repeat(width - text.length);
const list = (names: readonly string[]) => (names.length === 0 ? '—' : names.join(', '));

function summarize(node: string, update: unknown): string {
  const u = (update ?? {}) as Partial<PostState>;
  switch (node) {
    case 'triage':
      return `channel ${u.routing?.channel}, priority ${u.routing?.priority}, notify ${u.routing?.notify}`;
    case 'draft':
      return `drafted ${u.draft?.words} words`;
    case 'review':
      return `decision: ${u.decision}`;
    case 'publish':
      return `published to ${relative(process.cwd(), u.published ?? '')}`;
    case 'archive':
      return 'archived, not published';
    default:
      return '';
  }
}

/** One progress line per stream event. */
export function progressLine(ev: StreamEvent): string {
  const head = `step ${pad(String(ev.step), 2)}`;
  if (ev.interrupted) {
    const why = ev.ran.length === 0 ? 'stopped before' : 'waiting for a human in';
    return `${head}  ⏸ ${why} ${list(ev.next)}`;
  }
  const what = ev.ran.map((n) => `${pad(n, 8)} ${summarize(n, ev.updates[n])}`).join('; ');
  return `${head}  ✓ ${pad(what, 58)} next: ${list(ev.next)}`;
}

function changed(prev: Checkpoint<PostState> | undefined, cp: Checkpoint<PostState>): string {
  if (prev === undefined) return `input: brief "${cp.state.brief.title}"`;
  if (cp.interrupted)
    return `interrupt from ${cp.interruptNode}: "${(cp.interruptPayload as { question?: string })?.question}"`;
  const keys = Object.keys(cp.state).filter(
    (k) =>
      k !== 'trail' &&
      JSON.stringify(cp.state[k as keyof PostState]) !== JSON.stringify(prev.state[k as keyof PostState]),
  );
  if (keys.length > 0) return `+ ${keys.join(', ')}`;
  return prev.interrupted ? 'resume claim (the answer arrived)' : 'resume claim (same state, same frontier)';
}

/** The run's history, oldest first, one line per checkpoint. */
export function historyLines(newestFirst: readonly Checkpoint<PostState>[]): string[] {
  const cps = [...newestFirst].reverse();
  const lines = [`${pad('step', 5)} ${pad('next', 10)} ${pad('status', 12)} what changed`];
  cps.forEach((cp, i) => {
    const status = cp.done ? 'done' : cp.interrupted ? 'interrupted' : 'running';
    lines.push(
      `${pad(String(cp.step), 5)} ${pad(list(cp.next), 10)} ${pad(status, 12)} ${changed(cps[i - 1], cp)}`,
    );
  });
  return lines;
}
