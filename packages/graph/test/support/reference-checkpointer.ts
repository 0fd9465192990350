import {
  BaseCheckpointer,
  CheckpointConflict,
  type CheckpointRecord,
  compareThreadIds,
  type ListOptions,
  type ListThreadsOptions,
  type NormalizedPruneBounds,
  type ThreadInfo,
} from '@flow/core';

/** A tiny in-test backend on BaseCheckpointer, used until the real ones land. */
export class ReferenceCheckpointer extends BaseCheckpointer {
  protected readonly backend = 'reference';
  readonly #threads = new Map<string, Map<number, CheckpointRecord>>();

  protected async initialize(): Promise<void> {}

  protected async writeRecord(record: CheckpointRecord, ifRevision: number | undefined): Promise<number> {
    let steps = this.#threads.get(record.thread);
    const actual = steps?.get(record.step)?.revision ?? 0;
    if (ifRevision !== undefined && ifRevision !== actual) {
      throw new CheckpointConflict({
        thread: record.thread,
        step: record.step,
        expected: ifRevision,
        actual,
      });
    }
    if (steps === undefined) {
      steps = new Map();
      this.#threads.set(record.thread, steps);
    }
    steps.set(record.step, { ...record, revision: actual + 1 });
    return actual + 1;
  }

  protected async readRecord(thread: string, step: number | undefined) {
    const steps = this.#threads.get(thread);
    if (steps === undefined) return undefined;
    return steps.get(step ?? Math.max(...steps.keys()));
  }

  protected async readRecords(thread: string, opts: ListOptions) {
    const all = [...(this.#threads.get(thread)?.values() ?? [])].sort((a, b) => b.step - a.step);
    const page = all.filter((r) => opts.beforeStep === undefined || r.step < opts.beforeStep);
    return page.slice(0, opts.limit ?? page.length);
  }

  protected async readThreads(opts: ListThreadsOptions): Promise<ThreadInfo[]> {
    const out: ThreadInfo[] = [];
    for (const thread of [...this.#threads.keys()].sort(compareThreadIds)) {
      const r = (await this.readRecord(thread, undefined)) as CheckpointRecord;
      const done = r.next.length === 0 && !r.interrupted;
      out.push({ thread, latestStep: r.step, interrupted: r.interrupted, done, ts: r.ts });
    }
    return out.slice(0, opts.limit ?? out.length);
  }

  protected async removeThread(thread: string): Promise<number> {
    const n = this.#threads.get(thread)?.size ?? 0;
    this.#threads.delete(thread);
    return n;
  }

  protected async removeCheckpoints(_thread: string, _bounds: NormalizedPruneBounds): Promise<number> {
    return 0;
  }

  protected async release(): Promise<void> {}
}
