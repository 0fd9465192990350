// The worker processes the demo kills. `start`: starts the run and hangs in `draft`. `answer <decision>`:
// answers the review and, once `publish` has sent the post, hangs before the step commits.
import { SqliteCheckpointer } from '@flow/checkpoint-sqlite';
import { progressLine } from './format.js';
import { buildPipeline, sampleBrief } from './pipeline.js';

const [dbPath, thread, outDir, mode, answer] = process.argv.slice(2) as [
  string,
  string,
  string,
  string,
  string?,
];
// Never settles; the timer keeps the process alive until the demo kills it (SQLite holds no socket open).
const hang = () => new Promise<void>(() => setInterval(() => {}, 60_000));
const app = buildPipeline({
  checkpointer: new SqliteCheckpointer(dbPath),
  outDir,
  draftMs: mode === 'start' ? 60 * 60 * 1000 : 0, // the drafting service hangs: this process is killed first
  onDraftStart: () => console.log('draft started: waiting for the drafting service…'),
  afterSend: (receipt) => {
    console.log(
      `sent: ${receipt.file.split('/').pop()} (key ${receipt.key.slice(0, 16)}…); notifying subscribers…`,
    );
    return hang();
  },
});

const events =
  mode === 'start'
    ? app.stream({ brief: sampleBrief, trail: [] }, { thread })
    : app.streamResume(thread, { answer });
console.log(mode === 'start' ? `started thread ${thread}` : `answering the review: ${answer}`);
for await (const ev of events) console.log(progressLine(ev));
