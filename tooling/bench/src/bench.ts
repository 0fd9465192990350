import { fileURLToPath } from 'node:url';
import { createContext } from './context.js';
import { parseOptions, UsageError, usage, type WorkloadId } from './options.js';
import { progress } from './progress.js';
import { machineInfo, renderMachine } from './report/machine.js';
import { Recorder } from './report/recorder.js';
import { type BenchResult, writeResult } from './report/results.js';
import { renderSection } from './report/table.js';
import { evaluateTargets, renderTargets } from './report/targets.js';
import { sqliteNormalSuite } from './stores/sqlite.js';
import { openSuites } from './suites.js';
import { concurrency } from './workloads/concurrency.js';
import { durableNodes } from './workloads/durable-nodes.js';
import { encryption } from './workloads/encryption.js';
import { engine } from './workloads/engine.js';
import { growth } from './workloads/growth.js';
import { langgraphSavers } from './workloads/langgraph-savers.js';
import { largeState } from './workloads/large-state.js';
import { leaseOverhead } from './workloads/lease-overhead.js';
import { listThreads } from './workloads/list-threads.js';
import { putsAndReads } from './workloads/puts-and-reads.js';
import { recoveryTime } from './workloads/recovery-time.js';
import { toolOutputs } from './workloads/tool-outputs.js';
import { workerThroughput } from './workloads/worker-throughput.js';

/** Where results go unless `--out` says otherwise: `tooling/bench/results`. */
export const RESULTS_DIR = fileURLToPath(new URL('../results', import.meta.url));

/**
 * Runs the bench as `pnpm bench` does and resolves with the exit code: 0, 1 when a workload (or the setup)
 * threw, 2 for a usage error. Targets never change it. The report goes to `print`, progress to stderr.
 */
export async function runBench(
  argv: readonly string[],
  print: (text: string) => void = (t) => process.stdout.write(t),
): Promise<number> {
  let options: ReturnType<typeof parseOptions>;
  try {
    options = parseOptions(argv, RESULTS_DIR);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`${error.message}\n\n${usage()}\n`);
    return 2;
  }
  if (options.help) {
    print(`${usage()}\n`);
    return 0;
  }
  const startedAt = new Date().toISOString();
  const mode = options.quick ? 'quick' : 'full';
  progress(`@flow bench (${mode}): ${options.workloads.join(', ')} on ${options.backends.join(', ')}`);
  let ctx: Awaited<ReturnType<typeof createContext>>;
  try {
    ctx = await createContext(options);
  } catch (error) {
    progress(`cannot start: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
  const interrupted = () => {
    progress('interrupted: removing what the bench created');
    void ctx.cleanup().finally(() => process.exit(130));
  };
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);
  const rec = new Recorder();
  try {
    const machine = await machineInfo({ postgres: ctx.postgresUrl, redis: ctx.redisUrl });
    const suites = await openSuites(ctx, rec);
    const runs = (id: WorkloadId) => options.workloads.includes(id);
    if (runs('w1') || runs('w3')) await putsAndReads(ctx, suites, rec, { w1: runs('w1'), w3: runs('w3') });
    if (runs('w2')) await largeState(ctx, suites, rec);
    if (runs('w4'))
      await listThreads(
        ctx,
        suites.filter((s) => s.id !== 'memory'),
        rec,
      );
    if (runs('w5')) await engine(ctx, suites, rec);
    if (runs('w7')) await durableNodes(ctx, suites, rec);
    if (runs('conc')) await concurrency(ctx, suites, rec);
    if (runs('w9')) await toolOutputs(ctx, suites, rec);
    if (runs('normal') && options.backends.includes('sqlite')) {
      const normal = { id: 'normal', title: "SQLite synchronous: 'normal' on both sides" };
      await putsAndReads(ctx, [sqliteNormalSuite(ctx)], rec, { w1: true, w3: true }, normal);
    }
    if (runs('enc')) await encryption(ctx, suites, rec);
    if (runs('lease')) await leaseOverhead(ctx, suites, rec);
    if (runs('workers')) await workerThroughput(ctx, suites, rec);
    if (runs('recovery')) await recoveryTime(ctx, suites, rec);
    if (runs('lg')) await langgraphSavers(ctx, suites, rec);
    // Last: it runs LangGraph's engine in this thread, which turns AsyncLocalStorage on for good.
    if (runs('w6')) await growth(ctx, suites, rec);

    const targets = evaluateTargets(rec.sections);
    const notes = suites.flatMap((s) => s.notes);
    if (runs('w4') && options.backends.includes('memory')) {
      notes.push('memory: W4 is not run: thousands of large states would not fit in the V8 heap.');
    }
    const report = [
      `## @flow bench, ${mode} run, ${startedAt}`,
      '',
      renderMachine(machine),
      '',
      ...rec.sections.flatMap((s) => [renderSection(s), '']),
      renderTargets(targets),
      '',
      '### Notes',
      '',
      ...notes.map((n) => `- ${n}`),
    ];
    if (rec.failures.length > 0) {
      report.push(
        '',
        '### Failures',
        '',
        ...rec.failures.map((f) => `- ${f.workload} on ${f.backend}: ${f.message}`),
      );
    }
    const markdown = report.join('\n');
    print(`\n${markdown}\n`);
    if (options.outDir !== undefined) {
      const result: BenchResult = {
        startedAt,
        mode,
        machine,
        sizes: options.sizes,
        notes,
        sections: rec.sections,
        targets,
        failures: rec.failures,
      };
      progress(`results: ${writeResult(options.outDir, result, markdown)}`);
    }
  } finally {
    process.off('SIGINT', interrupted);
    process.off('SIGTERM', interrupted);
    await ctx.cleanup();
  }
  if (rec.failures.length > 0) {
    progress(`${rec.failures.length} workload(s) failed; see above`);
    return 1;
  }
  return 0;
}
