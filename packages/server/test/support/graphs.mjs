// The test graphs, in plain JavaScript so that child processes (`serve` in other processes, the browser
// harness) load the very same graphs as the in-process tests.
import { END, START, StateGraph } from '@flow/graph';

/**
 * draft → review (asks a human, with one-click options) → publish. `failAt: 'draft' | 'publish'` makes that
 * node throw; `note` is shown in the question (an XSS payload, in the browser tests).
 * @param {import('@flow/core').Checkpointer} checkpointer
 */
export function reviewGraph(checkpointer) {
  return new StateGraph({ reducers: { log: (a, b) => [...a, ...b] } })
    .addNode('draft', (s) => {
      if (s.failAt === 'draft') throw new Error('the draft model is down');
      return { draft: `A post about ${s.topic}`, log: ['drafted'] };
    })
    .addNode('review', (s, ctx) => {
      const verdict = ctx.interrupt({
        question: `Publish "${s.draft}"?`,
        options: ['approve', 'reject'],
        draft: s.draft,
        note: s.note ?? '',
      });
      return { verdict, log: [`reviewed: ${JSON.stringify(verdict)}`] };
    })
    .addNode('publish', (s) => {
      if (s.failAt === 'publish') throw new Error('the blog is down');
      return { log: [s.verdict === 'reject' ? 'dropped' : 'published'] };
    })
    .addEdge(START, 'draft')
    .addEdge('draft', 'review')
    .addEdge('review', 'publish')
    .addEdge('publish', END)
    .compile({ checkpointer });
}

/**
 * ask → check: each asks a human once (`first?`, then `second?`), so a run stops again at another question
 * after the first answer.
 * @param {import('@flow/core').Checkpointer} checkpointer
 */
export function twoQuestionsGraph(checkpointer) {
  return new StateGraph({ reducers: { log: (a, b) => [...a, ...b] } })
    .addNode('ask', (_s, ctx) => ({ log: [`ask:${ctx.interrupt('first?')}`] }))
    .addNode('check', (_s, ctx) => ({ log: [`check:${ctx.interrupt('second?')}`] }))
    .addEdge(START, 'ask')
    .addEdge('ask', 'check')
    .addEdge('check', END)
    .compile({ checkpointer });
}

/** A graph that never ends: `maxSteps: 3` stops every call with STEP_LIMIT. */
export function loopGraph(checkpointer) {
  return new StateGraph({})
    .addNode('spin', (s) => ({ n: (s.n ?? 0) + 1 }))
    .addEdge(START, 'spin')
    .addEdge('spin', 'spin')
    .compile({ checkpointer, maxSteps: 3 });
}

/** Two nodes write one key without a reducer: every run fails with INVALID_UPDATE. */
export function clashGraph(checkpointer) {
  return new StateGraph({})
    .addNode('left', () => ({ x: 1 }))
    .addNode('right', () => ({ x: 2 }))
    .addEdge(START, 'left')
    .addEdge(START, 'right')
    .compile({ checkpointer });
}

/** Opens the store a child process is told of in `FLOW_TEST_STORE` (JSON: `{ kind, path | url, schema }`). */
export async function openStoreFromEnv() {
  const spec = JSON.parse(process.env.FLOW_TEST_STORE ?? '{}');
  if (spec.kind === 'sqlite') {
    const { SqliteCheckpointer } = await import('@flow/checkpoint-sqlite');
    return new SqliteCheckpointer(spec.path);
  }
  const { PostgresCheckpointer } = await import('@flow/checkpoint-postgres');
  return new PostgresCheckpointer(spec.url, { schema: spec.schema });
}
