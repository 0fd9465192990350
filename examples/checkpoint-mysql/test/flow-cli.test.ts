import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Checkpoint } from '@flow/core';
import { expect, it } from 'vitest';
import { freshPrefix, freshStore, url } from './support/stores.js';

const run = promisify(execFile);
const here = join(dirname(fileURLToPath(import.meta.url)), '..');

// The packed @flow/cli, installed next to this plugin, finds the plugin's store factory by its package name
// (flow-checkpoint-mysql, for mysql: URLs): no code in the CLI knows about MySQL.
it('flow threads --store mysql://… lists the threads through this package', async () => {
  const prefix = freshPrefix();
  const store = freshStore({ tablePrefix: prefix });
  await store.put(new Checkpoint({ thread: 'order-42', step: 0, state: { n: 1 }, next: ['work'] }));
  await store.put(
    new Checkpoint({ thread: 'order-43', step: 1, state: {}, next: ['review'], interrupted: true }),
  );
  const storeUrl = `${url}${url.includes('?') ? '&' : '?'}tablePrefix=${prefix}`;
  const { stdout } = await run('npx', ['--no-install', 'flow', 'threads', '--store', storeUrl], {
    cwd: here,
  });
  expect(stdout).toMatch(
    /^THREAD\s+STEP\s+STATUS\s+AGE\norder-42\s+0\s+running\s+.*\norder-43\s+1\s+interrupted\s/,
  );
  const json = await run('npx', ['--no-install', 'flow', 'show', 'order-42', '--json', '--store', storeUrl], {
    cwd: here,
  });
  expect(JSON.parse(json.stdout)).toMatchObject({ thread: 'order-42', step: 0, state: { n: 1 } });
}, 60_000);
