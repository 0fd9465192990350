import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { type Outcome, runKitFixtures } from './support/run-fixtures.js';

const fixtures = fileURLToPath(new URL('./fixtures/', import.meta.url));

function runFixtures() {
  return runKitFixtures(fixtures, {
    name: 'fullName',
    vitest: { pool: 'threads', isolate: false, maxWorkers: 2 },
  });
}

/** For each mutant: kit tests that must fail on it (full names: backend > suite > test). */
const MUST_CATCH: Record<string, string[]> = {
  'revision-not-bumped': [
    'revision-not-bumped > revisions > an unconditional put bumps the revision: 1 when new, then old + 1',
    'revision-not-bumped > put/get > resolves put with the stored revision, ignoring the revision given on input',
    'revision-not-bumped > races > concurrent unconditional puts to one step each bump the revision once',
  ],
  'if-revision-ignored': [
    'if-revision-ignored > revisions > a stale ifRevision rejects with CheckpointConflict carrying thread, step, expected, actual',
    'if-revision-ignored > revisions > a conflict leaves storage unchanged: state, revision, ts, history and thread summary',
    'if-revision-ignored > races > concurrent puts with ifRevision: 0 on an empty step: exactly one wins, the rest conflict',
  ],
  'prune-removes-latest': [
    'prune-removes-latest > retention > prune never removes the latest checkpoint, even when it matches every bound',
    'prune-removes-latest > retention > the latest is the highest step, even when it is the oldest by ts',
    'prune-removes-latest > listThreads > the summary stays correct after prune and is gone after deleteThread',
  ],
  'js-sort-threads': [
    'js-sort-threads > listThreads > sorts thread ids in code-point order (astral after U+E000–U+FFFF, not JS sort)',
    'js-sort-threads > listThreads > pages across the whole set with after and limit',
    'js-sort-threads > thread ids > stores hostile but valid ids faithfully, each isolated from the others',
  ],
  'process-clock': [
    "process-clock > leases > expiry is judged by the store's clock: a process whose clock runs a day ahead still sees a live lease as live",
  ],
  'last-write-wins': [
    'last-write-wins > writes > the first value wins within one batch: a repeated (node, key) keeps the first',
    'last-write-wins > writes > the first value wins across calls: a later value for a stored key is ignored, not an error',
    'last-write-wins > writes > put with writes keeps first-wins: a key stored earlier keeps its value',
  ],
  'put-drops-writes': [
    'put-drops-writes > writes > put(cp, { writes }) stores the checkpoint and its writes for (cp.thread, cp.step)',
    'put-drops-writes > writes > a conditional put that conflicts stores no write; a successful one stores both',
    'put-drops-writes > writes > prune removes the writes of the steps it removes and keeps those of kept steps, and of a step not written yet',
  ],
  'damaged-reads-as-missing': [
    'damaged-reads-as-missing > damaged storage > a state cut off mid-text: get and list of it reject with CorruptCheckpointError naming the backend, thread and step, quoting no stored text',
  ],
  'upgrade-skipped': [
    'upgrade-skipped > other releases > layout 1, next kept as JSON text: setup brings it up to date; what it held reads back the same through every read and after a reopen, and it takes new writes',
  ],
  'newer-store-accepted': [
    'newer-store-accepted > other releases > storage a newer release wrote is refused with StorageError naming the backend, by setup and by every call after it',
  ],
  'list-oldest-first': [
    'list-oldest-first > listing > list returns newest step first',
    'list-oldest-first > listing > list pages through the whole history with beforeStep and limit',
    'list-oldest-first > listing > list beforeStep is exclusive',
  ],
  'drops-chunks': [
    'drops-chunks > linear storage > every step reads exactly through every kind of change: get, list, and a reopened instance',
    'drops-chunks > linear storage > a large state is stored as chunks, a small one whole; deleteThread leaves no chunk',
  ],
  'loses-refs': [
    'loses-refs > linear storage > every step reads exactly through every kind of change: get, list, and a reopened instance',
    'loses-refs > linear storage > old-format (whole) records read and mix with linear ones in one thread',
  ],
  'prune-drops-shared-chunks': [
    'prune-drops-shared-chunks > linear storage > prune keeps every remaining read exact, also for puts after it',
    'prune-drops-shared-chunks > linear storage > prune removes the chunks no remaining record references, and keeps the others',
  ],
  'refs-not-checked': [
    'refs-not-checked > linear storage > a put that shares chunks a prune removed writes them again and reads exactly',
  ],
  'delete-keeps-chunks': [
    'delete-keeps-chunks > linear storage > a large state is stored as chunks, a small one whole; deleteThread leaves no chunk',
  ],
  'prune-keeps-chunks': [
    'prune-keeps-chunks > linear storage > prune removes the chunks no remaining record references, and keeps the others',
    'prune-keeps-chunks > linear storage > a prune that removes no checkpoint still drops the chunks of overwritten steps (a rekey rewrites every step)',
  ],
  'racy-conditional-put': [
    'racy-conditional-put > races > concurrent puts with ifRevision: 0 on an empty step: exactly one wins, the rest conflict',
    'racy-conditional-put > races > concurrent puts with the same ifRevision: n > 0: exactly one wins, the rest conflict',
    'racy-conditional-put > writes > racing conditional puts with writes: only the winner’s writes are stored',
    'racy-conditional-put > linear storage > concurrent conditional puts of large states: exactly one wins and reads exactly',
  ],
  // A harness mistake: the kit names it in one test whose message says what to fix.
  'shared-storage': ['shared-storage > setup > harness: create() hands out fresh, empty storage every time'],
  'refused-put-leaves-chunks': [
    "refused-put-leaves-chunks > refused puts > the store refuses the thread: the refused put rejects with StorageError holding the store's error, and stores nothing: no checkpoint, writes, chunks or summary change",
  ],
  'refused-put-resolves': [
    "refused-put-resolves > refused puts > the store refuses the thread: the refused put rejects with StorageError holding the store's error, and stores nothing: no checkpoint, writes, chunks or summary change",
    'refused-put-resolves > refused puts > the store refuses the thread: puts issued together with a refused one land once each and resolve, wherever it stands among them; it alone rejects',
  ],
  'prefix-scan': [
    'prefix-scan > thread ids > an id that starts another id is its own thread: deleteThread, prune, get, list, writes and leases of "order-1" leave "order-10", "order-1/x" and "order-1 " alone',
  ],
  'list-drops-interrupt': [
    'list-drops-interrupt > put/get > round-trips every field of a checkpoint through put, get of its step, get of the latest and list',
  ],
};

describe('the kit catches deliberately broken backends', () => {
  let outcomes: Map<string, Outcome>;

  beforeAll(async () => {
    outcomes = await runFixtures();
  }, 240_000);

  it('runs every fixture', () => {
    expect([...outcomes.keys()].sort()).toEqual(['correct', ...Object.keys(MUST_CATCH)].sort());
  });

  it('the correct reference backend passes every kit test', () => {
    const correct = outcomes.get('correct')!;
    expect(correct.failed).toEqual([]);
    expect(correct.passed.length).toBeGreaterThan(70);
    expect(correct.passed).toContain(
      'correct > durability > durability: not declared by harness (no reopen), so restarts are not checked',
    );
  });

  for (const [mutant, names] of Object.entries(MUST_CATCH)) {
    it(`mutant "${mutant}" fails the kit tests that guard its rule`, () => {
      const { failed, passed } = outcomes.get(mutant)!;
      for (const name of names) expect(failed, `expected to fail: ${name}`).toContain(name);
      // Same kit, same tests: a mutant only moves tests from passed to failed.
      expect(failed.length + passed.length).toBe(outcomes.get('correct')!.passed.length);
    });
  }
});
