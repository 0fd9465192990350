// A graph module as a user writes one, for `flow serve` and `flow resume`: its store is the SQLite file
// of FLOW_TEST_DB. draft → review (asks a human) → publish.
import { SqliteCheckpointer } from '@flow/checkpoint-sqlite';
import { END, START, StateGraph } from '@flow/graph';

function build() {
  return new StateGraph({ reducers: { log: (a, b) => [...a, ...b] } })
    .addNode('draft', (s) => ({ draft: `A post about ${s.topic}`, log: ['drafted'] }))
    .addNode('review', (s, ctx) => ({ verdict: ctx.interrupt({ question: `Publish "${s.draft}"?` }) }))
    .addNode('publish', (s) => ({ log: [s.verdict === 'approve' ? 'published' : 'dropped'] }))
    .addEdge(START, 'draft')
    .addEdge('draft', 'review')
    .addEdge('review', 'publish')
    .addEdge('publish', END)
    .compile({ checkpointer: new SqliteCheckpointer(process.env.FLOW_TEST_DB) });
}

export const pipeline = build();
export const graphs = { blog: pipeline, news: build() };
export const notAGraph = { hello: 'world' };
export const uncompiled = new StateGraph({}).addNode('a', () => ({})).addEdge(START, 'a');
export default pipeline;
