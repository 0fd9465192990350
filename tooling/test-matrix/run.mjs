#!/usr/bin/env node
// `pnpm test:matrix`: for every Postgres and Redis/Valkey major version, start that server in its own
// container, run the backend's suite (`vitest run` in @flow/checkpoint-<kind>, as its test script does: it holds the
// conformance kit and the backend's own tests) against it, stop the container, and print a table of
// version x result. Exits non-zero when any test failed or was skipped, or a cell could not run.
// Options: --only=postgres:13,valkey:8 (image tags), --jobs=N (cells at once, default 1), --retries=N (a
// failed cell runs again in a fresh container up to N times, default 1; the table names what failed first).
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { probePostgres, probeRedis } from '@flow/test-db';
import { Redis } from 'ioredis';
import pg from 'pg';

const root = new URL('../..', import.meta.url).pathname;

const KINDS = {
  postgres: {
    pkg: '@flow/checkpoint-postgres',
    envVar: 'FLOW_TEST_POSTGRES_URL',
    port: 5432,
    // A throwaway server: durability to disk buys nothing and costs the suite minutes.
    args: ['postgres', '-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'],
    // Trust, like the hosted workflow's servers and the local one: a SCRAM handshake per connection costs
    // tests with tight connect timeouts their margin on a loaded machine. Passwords are covered by the
    // test tooling's container path.
    env: { POSTGRES_HOST_AUTH_METHOD: 'trust' },
    url: (port) => `postgres://postgres@127.0.0.1:${port}/postgres`,
    probe: probePostgres,
    version: postgresVersion,
  },
  redis: {
    pkg: '@flow/checkpoint-redis',
    envVar: 'FLOW_TEST_REDIS_URL',
    port: 6379,
    args: ['redis-server', '--save', '', '--appendonly', 'no'],
    env: {},
    url: (port) => `redis://127.0.0.1:${port}`,
    probe: probeRedis,
    version: redisVersion,
  },
};

const CELLS = [
  ...[13, 14, 15, 16, 17, 18].map((v) => ({
    label: `postgres ${v}`,
    kind: 'postgres',
    tag: `postgres:${v}`,
  })),
  ...[6, 7, 8].map((v) => ({ label: `redis ${v}`, kind: 'redis', tag: `redis:${v}` })),
  { label: 'valkey 8', kind: 'redis', tag: 'valkey:8' },
];

function option(name) {
  const arg = process.argv.slice(2).find((a) => a.startsWith(`--${name}=`));
  return arg?.slice(name.length + 3);
}

async function postgresVersion(url) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query('SHOW server_version')).rows[0].server_version.split(' ')[0];
  } finally {
    await client.end();
  }
}

async function redisVersion(url) {
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await client.connect();
  try {
    const info = await client.info('server');
    return info.match(/^valkey_version:(\S+)/m)?.[1] ?? info.match(/^redis_version:(\S+)/m)?.[1] ?? '?';
  } finally {
    client.disconnect();
  }
}

const docker = (...args) => execFileSync('docker', args, { encoding: 'utf8' }).trim();

async function waitFor(probe, url, ms) {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      return await probe(url, 1000);
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
}

/** The suites running now. */
const suites = new Set();

/**
 * Runs the package's test script (`vitest run`) with a JSON report in `jsonFile` besides the usual output;
 * through `exec`, since pnpm would take `--reporter` as its own option. Resolves with the exit code.
 */
function runSuite(kind, url, logFile, jsonFile) {
  const env = { ...process.env, [kind.envVar]: url };
  const args = ['--filter', kind.pkg, 'exec', 'vitest', 'run', '--reporter=default', '--reporter=json'];
  args.push(`--outputFile.json=${jsonFile}`);
  // Its own process group, so an interrupted matrix can end the whole suite (pnpm, vitest, its workers).
  const child = spawn('pnpm', args, { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  suites.add(child);
  child.on('close', () => suites.delete(child));
  const log = createWriteStream(logFile);
  child.stdout.pipe(log, { end: false });
  child.stderr.pipe(log, { end: false });
  return new Promise((resolve) => child.on('close', (code) => log.end(() => resolve(code ?? 1))));
}

/** Counts the JSON report's tests: the kit's (files named conformance*) apart from the backend's own. */
function countTests(jsonFile) {
  const report = JSON.parse(readFileSync(jsonFile, 'utf8'));
  const counts = {
    kit: { passed: 0, failed: 0, skipped: 0 },
    own: { passed: 0, failed: 0, skipped: 0 },
    failedNames: [],
  };
  for (const file of report.testResults) {
    const group = basename(file.name).startsWith('conformance') ? counts.kit : counts.own;
    let failed = 0;
    for (const test of file.assertionResults) {
      if (test.status === 'passed') group.passed++;
      else if (test.status === 'failed') {
        failed++;
        counts.failedNames.push(test.fullName);
      } else group.skipped++;
    }
    // A file that failed to load, or whose hook threw, has no failed test of its own: count it as one.
    if (file.status === 'failed' && failed === 0) {
      failed = 1;
      counts.failedNames.push(`${basename(file.name)}: ${file.message || 'a hook failed'}`);
    }
    group.failed += failed;
  }
  return counts;
}

async function runCell(cell, run, logs, attempt) {
  const kind = KINDS[cell.kind];
  const started = Date.now();
  const result = { cell, version: '-', counts: undefined, error: undefined, seconds: 0 };
  let id;
  try {
    const env = Object.entries(kind.env).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
    id = docker(
      'run',
      '-d',
      '--label',
      `flow-test.matrix=${run}`,
      '-p',
      `127.0.0.1::${kind.port}`,
      ...env,
      `flow-test/${cell.tag}`,
      ...kind.args,
    );
    const port = docker('port', id, `${kind.port}/tcp`).split('\n')[0].split(':').pop();
    const url = kind.url(port);
    await waitFor(kind.probe, url, 60_000);
    result.version = await kind.version(url);
    const stem = join(logs, `${cell.tag.replace(':', '-')}${attempt > 1 ? `-try${attempt}` : ''}`);
    const code = await runSuite(kind, url, `${stem}.log`, `${stem}.json`);
    try {
      result.counts = countTests(`${stem}.json`);
    } catch {
      result.error = `no test report (exit ${code}); see ${stem}.log`;
    }
    if (!result.error && code !== 0 && result.counts.kit.failed + result.counts.own.failed === 0)
      result.error = `exit ${code} with no failed test; see ${stem}.log`;
    result.log = `${stem}.log`;
  } catch (error) {
    result.error = error instanceof Error ? error.message.split('\n')[0] : String(error);
  } finally {
    if (id) execFileSync('docker', ['rm', '-f', '-v', id], { stdio: 'ignore' });
  }
  result.seconds = Math.round((Date.now() - started) / 1000);
  return result;
}

const passed = (r) =>
  !r.error &&
  r.counts &&
  r.counts.kit.failed + r.counts.own.failed + r.counts.kit.skipped + r.counts.own.skipped === 0;

function describe(group) {
  const parts = [`${group.passed} passed`];
  if (group.failed) parts.push(`${group.failed} failed`);
  if (group.skipped) parts.push(`${group.skipped} skipped`);
  return parts.join(', ');
}

function whatFailed(r) {
  return r.error ?? r.counts.failedNames.join(', ');
}

function printTable(results) {
  const rows = [['server', 'version', 'conformance kit', "backend's own tests", 'time', 'result']];
  for (const r of results) {
    rows.push([
      r.cell.label,
      r.version,
      r.counts ? describe(r.counts.kit) : '-',
      r.counts ? describe(r.counts.own) : '-',
      `${r.seconds}s`,
      (passed(r) ? 'ok' : `FAIL${r.error ? `: ${r.error}` : ''}`) +
        (r.earlier.length
          ? ` (on try ${r.earlier.length + 1}; before: ${r.earlier.map(whatFailed).join('; ')})`
          : ''),
    ]);
  }
  const widths = rows[0].map((_, i) => Math.max(...rows.map((row) => row[i].length)));
  for (const [i, row] of rows.entries()) {
    console.log(row.map((c, j) => (j === row.length - 1 ? c : c.padEnd(widths[j]))).join('  '));
    if (i === 0) console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  }
}

async function main() {
  const only = option('only')?.split(',');
  const jobs = Number(option('jobs') ?? 1);
  const retries = Number(option('retries') ?? 1);
  const cells = only ? CELLS.filter((c) => only.includes(c.tag)) : CELLS;
  if (cells.length === 0)
    throw new Error(`--only matches no cell (known: ${CELLS.map((c) => c.tag).join(', ')})`);
  const started = Date.now();

  // Images first (kept when present), so a cell's time is its tests.
  execFileSync('bash', [join(root, 'tooling/test-images/build.sh'), ...cells.map((c) => c.tag)], {
    stdio: 'inherit',
  });

  const run = randomBytes(4).toString('hex');
  const logs = mkdtempSync(join(tmpdir(), 'flow-matrix-'));
  const removeLeftovers = () => {
    const ids = docker('ps', '-aq', '--filter', `label=flow-test.matrix=${run}`);
    if (ids) execFileSync('docker', ['rm', '-f', '-v', ...ids.split('\n')], { stdio: 'ignore' });
  };
  process.once('SIGINT', () => {
    for (const child of suites) process.kill(-child.pid, 'SIGTERM');
    removeLeftovers();
    process.exit(130);
  });

  const results = [];
  const queue = [...cells];
  const worker = async () => {
    for (let cell = queue.shift(); cell; cell = queue.shift()) {
      const earlier = [];
      let result = await runCell(cell, run, logs, 1);
      while (!passed(result) && earlier.length < retries) {
        console.log(`${cell.tag}: failed (${whatFailed(result)}); running it again in a fresh container`);
        earlier.push(result);
        result = await runCell(cell, run, logs, earlier.length + 1);
      }
      result.earlier = earlier;
      results.push(result);
      const total = result.counts
        ? ['passed', 'failed', 'skipped'].map((k) => result.counts.kit[k] + result.counts.own[k])
        : [0, 0, 0];
      // The vitest summary line per cell, so a log reader that sums vitest runs counts these too.
      const failed = total[1] ? `${total[1]} failed | ` : '';
      const skipped = total[2] ? ` | ${total[2]} skipped` : '';
      const name = cell.tag.replace(':', '-');
      console.log(`${name}: ${result.seconds}s${result.error ? `, ${result.error}` : ''}`);
      console.log(
        `${name}: Tests  ${failed}${total[0]} passed${skipped} (${total[0] + total[1] + total[2]})`,
      );
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, jobs) }, worker));
  removeLeftovers();

  results.sort((a, b) => CELLS.indexOf(a.cell) - CELLS.indexOf(b.cell));
  for (const r of results.filter((x) => !passed(x) && x.log)) {
    console.log(`\n--- ${r.cell.label}: last lines of ${r.log}`);
    console.log(readFileSync(r.log, 'utf8').split('\n').slice(-60).join('\n'));
  }
  console.log(`\nPostgres and Redis version matrix (logs in ${logs}):\n`);
  printTable(results);
  const sum = (k) => results.reduce((n, r) => n + (r.counts ? r.counts.kit[k] + r.counts.own[k] : 0), 0);
  const leftover = docker('ps', '-aq', '--filter', `label=flow-test.matrix=${run}`);
  if (leftover) console.error(`containers left behind: ${leftover}`);
  console.log(`\nmatrix: ${sum('passed')} passed, ${sum('failed')} failed`);
  const retried = results.filter((r) => r.earlier.length > 0 && passed(r));
  if (retried.length) console.log(`passed only on a retry: ${retried.map((r) => r.cell.label).join(', ')}`);
  console.log(`matrix wall time: ${Math.round((Date.now() - started) / 1000)}s`);
  const ok = results.every(passed) && !leftover;
  if (!ok)
    console.error(
      `matrix failed: ${results
        .filter((r) => !passed(r))
        .map((r) => r.cell.label)
        .join(', ')}`,
    );
  process.exit(ok ? 0 : 1);
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
