import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { BlockFile } from './block-files.js';

/** How a block's process ended. */
export interface BlockRun {
  code: number | null;
  /** stdout and stderr, interleaved. */
  output: string;
  /** stdout alone. */
  stdout: string;
}

const vitestBin = join(dirname(createRequire(import.meta.url).resolve('vitest/package.json')), 'vitest.mjs');

/**
 * Runs one block in a child process, in a fresh temporary working directory (so `new SqliteCheckpointer('flow.db')`
 * or `new FileCheckpointer('.flow')` write there), with `env` added to the environment. A node block runs as a
 * script; a vitest block runs as a test file with vitest. Rejects nothing: the caller checks `code`.
 */
export function runBlock(file: BlockFile, env: Record<string, string>, timeoutMs: number): Promise<BlockRun> {
  const cwd = mkdtempSync(join(tmpdir(), 'flow-docs-'));
  const dir = dirname(file.entry);
  const args =
    file.block.runner === 'node'
      ? [file.entry]
      : [vitestBin, 'run', file.entry, '--root', dir, '--config', join(dir, 'vitest.config.mjs')];
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, {
      cwd,
      env: { ...process.env, ...env, NO_COLOR: '1', FORCE_COLOR: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: timeoutMs,
    });
    let output = '';
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk;
      stdout += chunk;
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk;
    });
    child.on('close', (code) => {
      rmSync(cwd, { recursive: true, force: true });
      resolve({ code, output, stdout });
    });
  });
}
