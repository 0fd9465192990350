// pnpm demo:serve — the demo's pipeline, answered from the browser: starts a run that waits for review,
// then serves the control plane on http://127.0.0.1:8787 until Ctrl-C.
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SqliteCheckpointer } from '@flow/checkpoint-sqlite';
import { createHandler, serve } from '@flow/server';
import { buildPipeline, sampleBrief } from './pipeline.js';

const here = dirname(fileURLToPath(import.meta.url));
const home = process.env.FLOW_DEMO_DIR ?? join(here, '..', '.flow-demo');
const port = Number(process.env.PORT ?? 8787);

mkdirSync(home, { recursive: true });
const checkpointer = new SqliteCheckpointer(join(home, 'flow.db'));
const app = buildPipeline({ checkpointer, outDir: join(home, 'published'), draftMs: 200 });
const thread = `post-${new Date().toISOString().replace(/[:.]/g, '-')}-${process.pid}`;
const run = await app.invoke({ brief: sampleBrief, trail: [] }, { thread });
console.log(`run ${thread}: ${run.status}${run.interrupt ? ` at ${run.interrupt.node}` : ''}`);

// The demo serves without a token, so it listens on 127.0.0.1 only (serve refuses anything else).
const server = await serve(createHandler({ graphs: { pipeline: app }, token: false }), { port });
console.log(`open ${server.url}/#/inbox and answer the review with approve or reject (Ctrl-C to stop)`);
const stop = async () => {
  await server.close();
  await checkpointer.close();
  process.exit(0);
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
