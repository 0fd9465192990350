// The worker process of part 1: starts the run and hangs in `draft` until the demo kills it.
import { SqliteCheckpointer } from '@flow/checkpoint-sqlite';
import { progressLine } from './format.js';
import { buildPipeline, sampleBrief } from './pipeline.js';

const [dbPath, thread, outDir] = process.argv.slice(2) as [string, string, string];
const app = buildPipeline({
  checkpointer: new SqliteCheckpointer(dbPath),
  outDir,
  draftMs: 60 * 60 * 1000, // the drafting service hangs here: this process is killed before it answers
  onDraftStart: () => console.log('draft started: waiting for the drafting service…'),
});

console.log(`started thread ${thread}`);
for await (const ev of app.stream({ brief: sampleBrief, trail: [] }, { thread }))
  console.log(progressLine(ev));
