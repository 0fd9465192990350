// A tiny checkpointer that keeps a whole store in one JSON file, written only for the kit's own tests of
// the "process races" suite: plain JavaScript, so the suite's child processes can import it as is.
// Every operation holds a lock (a directory made with mkdir, which is atomic), reads the file, and for a
// write replaces it through a temp file and rename. `{ bug: 'no-lock' }` drops the lock and widens the gap
// between read and write: the read-then-write race the suite must catch.
import { mkdir, readFile, rename, rmdir, writeFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { BaseCheckpointer, CheckpointConflict, compareThreadIds } from '@flow/core';

let temps = 0;

export class JsonFileCheckpointer extends BaseCheckpointer {
  backend = 'json-file';

  constructor(path, options = {}) {
    super();
    this.path = path;
    this.bug = options.bug;
  }

  async initialize() {
    await writeFile(this.path, '{}', { flag: 'wx' }).catch((error) => {
      if (error.code !== 'EEXIST') throw error;
    });
  }

  async locked(fn) {
    if (this.bug === 'no-lock') return fn();
    for (let wait = 1; ; wait = Math.min(wait * 2, 20)) {
      try {
        await mkdir(`${this.path}.lock`);
        break;
      } catch (error) {
        if (error.code !== 'EEXIST') throw error;
        await sleep(wait * Math.random());
      }
    }
    try {
      return await fn();
    } finally {
      await rmdir(`${this.path}.lock`);
    }
  }

  async load() {
    return JSON.parse(await readFile(this.path, 'utf8'));
  }

  async save(data) {
    const temp = `${this.path}.${process.pid}.${temps++}`;
    await writeFile(temp, JSON.stringify(data));
    await rename(temp, this.path);
  }

  records(data, thread) {
    return Object.values(data[thread] ?? {}).sort((a, b) => b.step - a.step);
  }

  writeRecord(record, ifRevision) {
    return this.locked(async () => {
      const data = await this.load();
      const actual = data[record.thread]?.[record.step]?.revision ?? 0;
      if (ifRevision !== undefined && ifRevision !== actual) {
        throw new CheckpointConflict({ ...record, expected: ifRevision, actual, backend: this.backend });
      }
      // Wide enough that eight children started together overlap in it on a loaded 2-core machine (10 ms
      // let one race of 8 come out right at a load of 21, so the mutant passed it).
      if (this.bug === 'no-lock') await sleep(100);
      data[record.thread] ??= {};
      data[record.thread][record.step] = { ...record, next: [...record.next], revision: actual + 1 };
      await this.save(data);
      return actual + 1;
    });
  }

  async readRecord(thread, step) {
    const all = this.records(await this.load(), thread);
    return step === undefined ? all[0] : all.find((r) => r.step === step);
  }

  async readRecords(thread, { beforeStep, limit }) {
    const all = this.records(await this.load(), thread).filter(
      (r) => beforeStep === undefined || r.step < beforeStep,
    );
    return limit === undefined ? all : all.slice(0, limit);
  }

  async readThreads({ after, limit, status }) {
    const data = await this.load();
    const infos = Object.keys(data)
      .map((thread) => this.records(data, thread)[0])
      .filter((r) => r !== undefined)
      .map((r) => {
        const done = r.next.length === 0 && !r.interrupted;
        return { thread: r.thread, latestStep: r.step, interrupted: r.interrupted, done, ts: r.ts };
      })
      .filter((i) => after === undefined || compareThreadIds(i.thread, after) > 0)
      .filter((i) => !status || status === (i.done ? 'done' : i.interrupted ? 'interrupted' : 'running'))
      .sort((a, b) => compareThreadIds(a.thread, b.thread));
    return limit === undefined ? infos : infos.slice(0, limit);
  }

  removeThread(thread) {
    return this.locked(async () => {
      const data = await this.load();
      const count = Object.keys(data[thread] ?? {}).length;
      delete data[thread];
      await this.save(data);
      return count;
    });
  }

  removeCheckpoints() {
    throw new Error('not needed by the process races');
  }

  async release() {}
}
