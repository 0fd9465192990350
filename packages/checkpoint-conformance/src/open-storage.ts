import type { BaseCheckpointer, CheckpointRecord, ListOptions, NormalizedPruneBounds } from '@flow/core';

/**
 * A backend's storage operations (protected on `BaseCheckpointer`: core calls them, applications never do)
 * made callable, each after `setup()`. For a backend's own tests of the storage contract — records with refs
 * and chunks exactly as core's encoder hands them (see `storedRecord`), below what the kit's suites reach
 * through the public API.
 */
export interface OpenStorage {
  /** `writeRecord`: stores `record` (conditionally on `ifRevision`) and answers its revision. */
  write(record: CheckpointRecord, ifRevision?: number): Promise<number>;
  /** `readRecord`: the record of `step` (the latest without it), or undefined. */
  read(thread: string, step?: number): Promise<CheckpointRecord | undefined>;
  /** `readRecords`: the thread's records, newest first, as `list` would select them. */
  readAll(thread: string, opts?: ListOptions): Promise<CheckpointRecord[]>;
  /** `removeCheckpoints`: prunes by already normalized bounds; answers how many records went. */
  removeBefore(thread: string, bounds: NormalizedPruneBounds): Promise<number>;
  /** `removeThread`: deletes the thread; answers how many records went. */
  remove(thread: string): Promise<number>;
}

type Backend = abstract new (...args: any[]) => BaseCheckpointer;

/**
 * `Backend` with its storage operations opened up (`OpenStorage`): `new (withOpenStorage(MyCheckpointer))(…)`
 * takes `MyCheckpointer`'s own arguments. The answer type is spelled out because a class expression that
 * inherits protected members cannot appear in a declaration file. `Base` must be a concrete class.
 */
export function withOpenStorage<B extends Backend>(
  Base: B,
): new (
  ...args: ConstructorParameters<B>
) => InstanceType<B> & OpenStorage {
  abstract class Opened extends Base implements OpenStorage {
    async write(record: CheckpointRecord, ifRevision?: number): Promise<number> {
      await this.setup();
      return this.writeRecord(record, ifRevision);
    }
    async read(thread: string, step?: number): Promise<CheckpointRecord | undefined> {
      await this.setup();
      return this.readRecord(thread, step);
    }
    async readAll(thread: string, opts: ListOptions = {}): Promise<CheckpointRecord[]> {
      await this.setup();
      return this.readRecords(thread, opts);
    }
    async removeBefore(thread: string, bounds: NormalizedPruneBounds): Promise<number> {
      await this.setup();
      return this.removeCheckpoints(thread, bounds);
    }
    async remove(thread: string): Promise<number> {
      await this.setup();
      return this.removeThread(thread);
    }
  }
  // Abstract only to type-check against an abstract constraint: `Base` is a concrete backend in practice.
  return Opened as unknown as new (
    ...args: ConstructorParameters<B>
  ) => InstanceType<B> & OpenStorage;
}
