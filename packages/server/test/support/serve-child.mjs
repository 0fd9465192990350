// A server in a process of its own, on the store of FLOW_TEST_STORE: prints its URL, then serves until killed.
import { createHandler, serve } from '../../dist/index.js';
import { openStoreFromEnv, reviewGraph } from './graphs.mjs';

const store = await openStoreFromEnv();
const handler = createHandler({ graphs: { pipeline: reviewGraph(store) }, token: process.env.FLOW_TOKEN });
const server = await serve(handler, { port: 0, host: '127.0.0.1' });
process.stdout.write(`${server.url}\n`);
process.on('SIGTERM', async () => {
  await server.close();
  await store.close();
  process.exit(0);
});
