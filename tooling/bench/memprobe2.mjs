import { FlowSaver } from '@flow/langgraph';
import { MemoryCheckpointer } from '@flow/checkpoint-memory';
import { Annotation, END, START, StateGraph } from '@langchain/langgraph';
const store = new MemoryCheckpointer();
let saver = new FlowSaver(store);
const steps = Number(process.argv[2] ?? 50), kb = Number(process.argv[3] ?? 1);
const State = Annotation.Root({ msgs: Annotation({ reducer: (a, b) => a.concat(b), default: () => [] }) });
let app = new StateGraph(State)
  .addNode('a', async (s) => ({ msgs: ['x'.repeat(kb * 1024 - 10) + s.msgs.length] }))
  .addEdge(START, 'a')
  .addConditionalEdges('a', (s) => (s.msgs.length < steps ? 'a' : END), ['a', END])
  .compile({ checkpointer: saver });
const N = Number(process.argv[4] ?? 50);
for (let i = 0; i < N; i++) await app.invoke({ msgs: [] }, { configurable: { thread_id: 't' + i }, recursionLimit: steps + 10 });
global.gc(); const withCache = process.memoryUsage().heapUsed;
saver = null; app = null;
await new Promise(r => setTimeout(r, 50));
global.gc(); const without = process.memoryUsage().heapUsed;
console.log(`steps ${steps} x ${kb} KB: final state ~${steps * kb} KB; cache per thread KB`, ((withCache - without) / N / 1024).toFixed(1));
