import { FlowSaver } from '@flow/langgraph';
import { SqliteCheckpointer } from '@flow/checkpoint-sqlite';
import { Annotation, END, START, StateGraph } from '@langchain/langgraph';
import { HumanMessage } from '@langchain/core/messages';
import { rmSync, statSync, existsSync } from 'node:fs';
const kind = process.argv[2] ?? 'plain'; const steps = Number(process.argv[3] ?? 200);
const path = `/tmp/w6lg-${kind}.db`; for (const s of ['', '-wal', '-shm']) rmSync(path + s, { force: true });
const store = new SqliteCheckpointer(path);
const saver = new FlowSaver(store);
const State = Annotation.Root({ msgs: Annotation({ reducer: (a, b) => a.concat(b), default: () => [] }) });
const msg = (n) => (kind === 'plain' ? `message ${n} ` + 'x'.repeat(180) : new HumanMessage(`message ${n} ` + 'x'.repeat(180)));
const app = new StateGraph(State)
  .addNode('a', async (s) => ({ msgs: [msg(s.msgs.length)] }))
  .addEdge(START, 'a')
  .addConditionalEdges('a', (s) => (s.msgs.length < steps ? 'a' : END), ['a', END])
  .compile({ checkpointer: saver });
const out = await app.invoke({ msgs: [] }, { configurable: { thread_id: 't' }, recursionLimit: steps + 10 });
const finalJson = JSON.stringify(out.msgs).length;
await store.close();
let bytes = 0; for (const s of ['', '-wal']) if (existsSync(path + s)) bytes += statSync(path + s).size;
console.log(kind, steps, 'steps: file bytes', bytes, 'final state JSON', finalJson, 'ratio', (bytes / finalJson).toFixed(1));
