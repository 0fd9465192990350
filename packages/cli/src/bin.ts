#!/usr/bin/env node
import { runCli } from './cli.js';

// `flow threads | head` closes the pipe early: that is not an error.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw error;
});

process.exitCode = await runCli(process.argv.slice(2));
// Stores are closed by now; this only guards against a driver that keeps a handle open.
setTimeout(() => process.exit(), 2000).unref();
