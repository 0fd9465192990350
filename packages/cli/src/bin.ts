#!/usr/bin/env node
import { runCli } from './cli.js';
import { processIo, processOutput } from './io.js';

process.exitCode = await runCli(process.argv.slice(2), processIo());
// Writes to a pipe are asynchronous: a slow reader must get everything before the process may exit.
const { stdout, stderr } = processOutput();
await Promise.all([stdout.flushed(), stderr.flushed()]);
// Stores are closed by now; this only guards against a driver that keeps a handle open once all is written.
setTimeout(() => process.exit(), 2000).unref();
