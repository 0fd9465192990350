import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The built bin the tests run. */
export const BIN = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'dist', 'bin.js');

/** What one run of the bin did. */
export interface BinResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs `node dist/bin.js ...args` as a subprocess, with stdin, stdout and stderr as pipes (not a TTY).
 * `FLOW_STORE` and `NO_COLOR` are cleared unless `env` sets them.
 */
export function runBin(
  args: readonly string[],
  opts: { env?: Record<string, string>; cwd?: string; bin?: string; timeoutMs?: number } = {},
): Promise<BinResult> {
  const env: NodeJS.ProcessEnv = { ...process.env, ...opts.env };
  if (opts.env?.FLOW_STORE === undefined) delete env.FLOW_STORE;
  if (opts.env?.NO_COLOR === undefined) delete env.NO_COLOR;
  return new Promise((resolve, reject) => {
    const child = execFile(
      process.execPath,
      [opts.bin ?? BIN, ...args],
      { env, cwd: opts.cwd, timeout: opts.timeoutMs ?? 20_000, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error && typeof error.code !== 'number') {
          reject(new Error(`flow ${args.join(' ')} did not exit: ${error.message}\n${stderr}`));
          return;
        }
        resolve({ code: error ? Number(error.code) : 0, stdout, stderr });
      },
    );
    child.stdin?.end();
  });
}

/** Runs the bin and parses its stdout as one JSON document, failing with stderr when it did not exit 0. */
export async function runJson(
  args: readonly string[],
  opts?: Parameters<typeof runBin>[1],
): Promise<unknown> {
  const result = await runBin(args, opts);
  if (result.code !== 0) throw new Error(`flow ${args.join(' ')} exited ${result.code}: ${result.stderr}`);
  return JSON.parse(result.stdout);
}
