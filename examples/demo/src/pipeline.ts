import { appendFile, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type Checkpointer, createRedactor } from '@flow/core';
import { END, START, StateGraph } from '@flow/graph';

/** What an editor sends in. */
export interface Brief {
  title: string;
  author: string;
  email: string;
  notes: string[];
}

/** The pipeline's state: each step adds its part. */
export interface PostState {
  brief: Brief;
  routing?: { channel: 'blog' | 'newsletter'; priority: 'high' | 'normal'; notify: string };
  draft?: { markdown: string; words: number };
  decision?: 'approved' | 'rejected';
  published?: string | null;
  /** Which process ran each node: shows the crash and the resume. */
  trail: string[];
}

/** What the review step asks the human. */
export interface ReviewQuestion {
  question: string;
  title: string;
  channel: string;
  words: number;
  preview: string;
}

export interface PipelineOptions {
  checkpointer: Checkpointer;
  /** Where `publish` writes the post. */
  outDir: string;
  /** How long the (simulated) drafting service takes. */
  draftMs: number;
  /** Called when `draft` starts, before its slow call. */
  onDraftStart?: () => void;
  /**
   * Called in `publish` once the post was sent (and the receipt stored), before the step commits: the demo's
   * worker hangs here so it can be killed at exactly that moment.
   */
  afterSend?: (receipt: Receipt) => Promise<void> | void;
}

/** What sending a post leaves behind: where it went, and the key the outbox deduplicates by. */
export interface Receipt {
  file: string;
  key: string;
  pid: number;
}

/** The outbox: one line per post actually sent, so the demo can show each was sent once. */
export const outboxOf = (outDir: string) => join(outDir, 'outbox.log');

export const sampleBrief: Brief = {
  title: 'Durable workflows in five minutes',
  author: 'Ada',
  email: 'ada@example.com',
  notes: [
    'every super-step is committed before the next one starts',
    'a crashed run resumes from its last committed step',
    'a run can wait days for a human and go on when they answer',
  ],
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const by = (node: string) => [`${node} (pid ${process.pid})`];

/** triage → draft → review (a human approves) → publish or archive. Deterministic, no network. */
export function buildPipeline(options: PipelineOptions) {
  return (
    new StateGraph<PostState>({ reducers: { trail: (a, b) => [...a, ...b] } })
      .addNode('triage', ({ brief }) => {
        const text = `${brief.title} ${brief.notes.join(' ')}`.toLowerCase();
        return {
          routing: {
            channel: brief.notes.length > 2 ? 'blog' : 'newsletter',
            priority: /crash|outage|security/.test(text) ? 'high' : 'normal',
            notify: brief.email,
          },
          trail: by('triage'),
        };
      })
      .addNode('draft', async ({ brief, routing }) => {
        options.onDraftStart?.();
        await sleep(options.draftMs); // stands in for a slow call to a writing model
        const markdown = [
          `# ${brief.title}`,
          '',
          `*by ${brief.author} · ${routing?.channel ?? 'blog'}*`,
          '',
          ...brief.notes.map((n) => `- ${n[0]?.toUpperCase()}${n.slice(1)}.`),
          '',
        ].join('\n');
        return {
          draft: { markdown, words: markdown.split(/\s+/).filter(Boolean).length },
          trail: by('draft'),
        };
      })
      .addNode('review', ({ brief, routing, draft }, ctx) => {
        const question: ReviewQuestion = {
          question: 'Publish this draft?',
          title: brief.title,
          channel: routing?.channel ?? 'blog',
          words: draft?.words ?? 0,
          preview: draft?.markdown ?? '',
        };
        const answer = ctx.interrupt<string | undefined>(question);
        return { decision: answer === 'approve' ? 'approved' : 'rejected', trail: by('review') };
      })
      .addNode('publish', async (s, ctx) => {
        // The side effect runs as a durable task: once it finished, a re-run of this node at this step (after
        // a crash, say) gets the stored receipt back instead of sending again.
        const receipt = await ctx.task('send', async (): Promise<Receipt> => {
          await mkdir(options.outDir, { recursive: true });
          const file = join(options.outDir, `${ctx.thread}.md`);
          const key = ctx.idempotencyKey('send');
          await writeFile(file, s.draft?.markdown ?? '');
          await appendFile(outboxOf(options.outDir), `${ctx.thread} ${key} sent by pid ${process.pid}\n`);
          return { file, key, pid: process.pid };
        });
        await options.afterSend?.(receipt);
        return { published: receipt.file, trail: by('publish') };
      })
      .addNode('archive', () => ({ published: null, trail: by('archive') }))
      .addEdge(START, 'triage')
      .addEdge('triage', 'draft')
      .addEdge('draft', 'review')
      .addConditionalEdges('review', (s) => (s.decision === 'approved' ? 'publish' : 'archive'), [
        'publish',
        'archive',
      ])
      .addEdge('publish', END)
      .addEdge('archive', END)
      // Progress lines print the events; the address stays in the checkpoints, masked on screen.
      .compile({ checkpointer: options.checkpointer, redactor: createRedactor(['notify']) })
  );
}
