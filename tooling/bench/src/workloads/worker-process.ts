// A worker process of the worker workloads: `node worker-process.js '<WorkerProcessArgs JSON>'`. It opens the
// store, prints `ready`, then follows the commands it reads on stdin (below).
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
// Commands, one per line: `go` starts the worker, `pause` stops it (it drains) and prints `paused`, `stop`
// stops it and exits.
let buffer = '';
let queue = Promise.resolve();
process.stdin.setEncoding('utf8').on('data', (chunk: string) => {
  buffer += chunk;
  for (let i = buffer.indexOf('\n'); i >= 0; i = buffer.indexOf('\n')) {
    const command = buffer.slice(0, i).trim();
    buffer = buffer.slice(i + 1);
    queue = queue.then(() => run(command));
  }
});

async function run(command: string): Promise<void> {
  if (command === 'go') {
    worker.start();
    process.stdout.write('started\n');
  } else if (command === 'pause') {
    await worker.stop();
    process.stdout.write('paused\n');
  } else if (command === 'stop') {
    await worker.stop();
    await close();
    process.exit(0);
  }
}
