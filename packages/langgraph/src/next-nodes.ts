import { type Checkpoint, compareChannelVersions, TASKS } from '@langchain/langgraph-checkpoint';

const BRANCH = 'branch:to:';
const START = '__start__';

/**
 * The nodes a LangGraph checkpoint will run next, for @flow's views only (`flow threads`, the server): a
 * `StateGraph` node `X` runs when its trigger channel `branch:to:X` holds a value newer than the version `X`
 * last saw; the input node `__start__` likewise on `__start__`; and every `Send` waiting in the tasks channel.
 * LangGraph itself never reads this: it decides from the checkpoint's channels.
 */
export function nextNodes(checkpoint: Checkpoint): string[] {
  const next = new Set<string>();
  const values = checkpoint.channel_values as Record<string, unknown>;
  for (const channel of Object.keys(values)) {
    let node: string | undefined;
    if (channel.startsWith(BRANCH)) node = channel.slice(BRANCH.length);
    else if (channel === START) node = START;
    if (node === undefined) continue;
    const version = checkpoint.channel_versions[channel];
    const seen = (checkpoint.versions_seen as Record<string, Record<string, number | string>>)[node]?.[
      channel
    ];
    if (version !== undefined && (seen === undefined || compareChannelVersions(version, seen) > 0))
      next.add(node);
  }
  const sends = values[TASKS];
  if (Array.isArray(sends)) {
    for (const send of sends) {
      const node = (send as { node?: unknown } | null)?.node;
      if (typeof node === 'string') next.add(node);
    }
  }
  return [...next].sort();
}
