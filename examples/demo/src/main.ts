// pnpm demo [--approve | --reject]: a content pipeline that crashes, resumes, and waits for a human.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SqliteCheckpointer } from '@flow/checkpoint-sqlite';
import { isFlowError } from '@flow/core';
import { parseArgs, usage } from './args.js';
import { askHuman } from './ask-human.js';
import { historyLines, progressLine } from './format.js';
import { buildPipeline, outboxOf, type ReviewQuestion } from './pipeline.js';

const here = dirname(fileURLToPath(import.meta.url));
const home = process.env.FLOW_DEMO_DIR ?? join(here, '..', '.flow-demo');
const dbPath = join(home, 'flow.db');
const outDir = join(home, 'published');
const show = (path: string) => relative(process.cwd(), path) || '.';
const say = (line = '') => console.log(line);
const indent = (line: string) => say(`   ${line}`);

/** Runs a worker process (`start`, or `answer <decision>`) and SIGKILLs it when it prints `killOn`. */
async function crashWorker(thread: string, args: string[], killOn: string, where: string): Promise<number> {
  const worker = spawn(process.execPath, [join(here, 'worker.js'), dbPath, thread, outDir, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  worker.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise<NodeJS.Signals | number | null>((resolve) => {
    worker.on('exit', (code, signal) => resolve(signal ?? code));
  });
  let buffer = '';
  worker.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    buffer += chunk;
    for (let i = buffer.indexOf('\n'); i >= 0; i = buffer.indexOf('\n')) {
      const line = buffer.slice(0, i);
      buffer = buffer.slice(i + 1);
      indent(`worker ${worker.pid} │ ${line}`);
      if (line.startsWith(killOn)) worker.kill('SIGKILL');
    }
  });
  const end = await exited;
  if (end !== 'SIGKILL')
    throw new Error(`the worker ended on its own (${end}) instead of being killed:\n${stderr}`);
  indent(`✗ killed worker ${worker.pid} with SIGKILL ${where}`);
  return worker.pid as number;
}

async function main(): Promise<void> {
  let args: ReturnType<typeof parseArgs>;
  try {
    args = parseArgs(process.argv.slice(2));
  } catch (error) {
    console.error(`demo: ${(error as Error).message}\n\n${usage}`);
    process.exit(2);
  }
  if (args.help) return say(usage);

  mkdirSync(home, { recursive: true });
  const thread = `post-${new Date().toISOString().replace(/[:.]/g, '-')}-${process.pid}`;
  const checkpointer = new SqliteCheckpointer(dbPath);
  const app = buildPipeline({ checkpointer, outDir, draftMs: 200 });
  try {
    say('@flow demo — a content pipeline: triage → draft → review (a human) → publish');
    say(`store: SqliteCheckpointer at ${show(dbPath)} · thread: ${thread}`);
    say();

    say('1. A worker process starts the run, and crashes mid-way');
    await crashWorker(thread, ['start'], 'draft started', 'in the middle of "draft"');
    const left = await app.getState(thread);
    indent(
      `last committed checkpoint: step ${left?.step}, next: ${left?.next.join(', ')} (the draft was lost)`,
    );
    say();

    say(`2. This process (pid ${process.pid}) resumes from the last committed step`);
    for await (const ev of app.streamResume(thread)) indent(progressLine(ev));
    const waiting = await app.getState(thread);
    const q = waiting?.interruptPayload as ReviewQuestion;
    indent(`the run is suspended and durable: it could wait here for days. The question:`);
    indent(`  ${q.question}  "${q.title}" (${q.channel}, ${q.words} words)`);
    for (const line of q.preview.trimEnd().split('\n')) indent(`  │ ${line}`);
    say();

    say('3. A human answers');
    const human = await askHuman(args);
    indent(`answer: ${human.answer} — from ${human.source}`);
    if (human.answer === 'approve') {
      // A worker takes the answer and publishes; it dies after the send finished, before the step committed.
      await crashWorker(thread, ['answer', 'approve'], 'sent:', 'after the send, before "publish" committed');
      const cut = await app.getState(thread);
      indent(
        `last committed checkpoint: step ${cut?.step}, next: ${cut?.next.join(', ')} — the send is stored`,
      );
      indent('this process resumes; "publish" runs again and gets the stored receipt instead of sending:');
      for await (const ev of app.streamResume(thread)) indent(progressLine(ev));
    } else {
      for await (const ev of app.streamResume(thread, { answer: human.answer })) indent(progressLine(ev));
    }
    const again = human.answer === 'approve' ? 'reject' : 'approve';
    try {
      await app.resume(thread, { answer: again });
    } catch (error) {
      if (!isFlowError(error, 'ALREADY_RESUMED')) throw error;
      indent(
        `a second answer ("${again}") is refused with ${error.code}: an interrupt is answered exactly once`,
      );
    }
    say();

    say(`4. History of ${thread} (oldest first)`);
    for (const line of historyLines(await app.history(thread))) indent(line);
    const final = await app.getState(thread);
    indent(`who ran what: ${final?.state.trail.join(' → ')}`);
    const outbox = outboxOf(outDir);
    const sends = existsSync(outbox)
      ? readFileSync(outbox, 'utf8')
          .split('\n')
          .filter((l) => l.startsWith(`${thread} `))
      : [];
    indent(
      `outbox: ${sends.length} send${sends.length === 1 ? '' : 's'} for this thread${sends.map((l) => ` (${l.split(' ').slice(2).join(' ')})`).join('')}`,
    );
    say();
    say(
      final?.state.published
        ? `Done: published to ${show(final.state.published)}.`
        : 'Done: the post was archived, not published.',
    );
    say('Run `pnpm demo` again for a new thread (add --approve or --reject to answer without a prompt).');
  } finally {
    await checkpointer.close();
  }
}

main().catch((error: unknown) => {
  console.error(`demo failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exit(1);
});
