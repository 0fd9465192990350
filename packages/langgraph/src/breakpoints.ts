import { type Checkpoint, compareChannelVersions, INTERRUPT } from '@langchain/langgraph-checkpoint';

/** A graph's static breakpoints (`compile({ interruptBefore, interruptAfter })`): node names, or `'*'`. */
export interface Breakpoints {
  interruptBefore?: readonly string[] | '*' | undefined;
  interruptAfter?: readonly string[] | '*' | undefined;
}

/**
 * LangGraph's rule for a static breakpoint: the graph stops at a checkpoint when one of `nodes` is among
 * `tasks` and some channel changed since the last stop (`versions_seen.__interrupt__`), so a resumed run
 * does not stop at the same place again.
 */
export function stopsAt(
  checkpoint: Pick<Checkpoint, 'channel_versions' | 'versions_seen'>,
  nodes: readonly string[] | '*' | undefined,
  tasks: readonly string[],
): string | undefined {
  if (nodes === undefined || nodes.length === 0) return undefined;
  // `'*'` is every node but the input's (LangGraph hides `__start__` from it).
  const node = tasks.find((t) => (nodes === '*' ? t !== '__start__' : nodes.includes(t)));
  if (node === undefined) return undefined;
  const seen = (checkpoint.versions_seen as Record<string, Record<string, number | string>>)[INTERRUPT] ?? {};
  for (const [channel, version] of Object.entries(checkpoint.channel_versions)) {
    const was = seen[channel];
    if (was === undefined || compareChannelVersions(version, was) > 0) return node;
  }
  return undefined;
}
