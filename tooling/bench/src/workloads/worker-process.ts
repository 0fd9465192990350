// A worker process of the worker workloads: `node worker-process.js '<WorkerProcessArgs JSON>'`. It opens the
// store, prints `ready`, starts its worker on a `go` line and, on a `stop` line, stops it and exits.
import { syncBuiltinESMExports } from 'node:module';
import os from 'node:os';
import { createWorker } from '@flow/graph';
import { openDescribed, runGraph, type WorkerProcessArgs } from './worker-graph.js';

const args = JSON.parse(process.argv[2] ?? '{}') as WorkerProcessArgs;
if (args.host !== undefined) {
  // The lease records hostname(): another name makes this process look remote to the bench's other workers.
  const host = args.host;
  os.hostname = () => host;
  syncBuiltinESMExports();
}
const { store, close } = await openDescribed(args.store);
const worker = createWorker(runGraph(store, args.graph), {
  concurrency: args.concurrency,
  pollMs: args.pollMs,
  log: (line) => process.stderr.write(`${line}\n`),
});
process.stdout.write('ready\n');
let buffer = '';
process.stdin.setEncoding('utf8').on('data', async (chunk: string) => {
  buffer += chunk;
  if (buffer.includes('go\n')) {
    buffer = buffer.replace('go\n', '');
    worker.start();
    process.stdout.write('started\n');
  }
  if (buffer.includes('stop\n')) {
    buffer = '';
    await worker.stop();
    await close();
    process.exit(0);
  }
});
