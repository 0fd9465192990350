import { compareWrites, type WriteRecord } from '@flow/core';

/** One step's writes by node, then key: a Map of Maps, so no separator can make two (node, key) collide. */
type StepWrites = Map<string, Map<string, string>>;

/** Per-step writes of one MemoryCheckpointer: thread → step → node → key → serialized value. */
export class MemoryWrites {
  readonly #threads = new Map<string, Map<number, StepWrites>>();

  /** Stores each write whose (node, key) is not stored yet: the first value wins. */
  add(thread: string, step: number, writes: readonly WriteRecord[]): void {
    const steps = getOrAdd(this.#threads, thread, () => new Map<number, StepWrites>());
    const nodes = getOrAdd(steps, step, (): StepWrites => new Map());
    for (const w of writes) {
      const keys = getOrAdd(nodes, w.node, () => new Map<string, string>());
      if (!keys.has(w.key)) keys.set(w.key, w.value);
    }
  }

  read(thread: string, step: number): WriteRecord[] {
    const nodes = this.#threads.get(thread)?.get(step);
    if (nodes === undefined) return [];
    const out: WriteRecord[] = [];
    for (const [node, keys] of nodes) for (const [key, value] of keys) out.push({ node, key, value });
    return out.sort(compareWrites);
  }

  deleteThread(thread: string): void {
    this.#threads.delete(thread);
  }

  deleteStep(thread: string, step: number): void {
    this.#threads.get(thread)?.delete(step);
  }

  // Stryker disable next-line BlockStatement: called only by close(), after which every method rejects
  clear(): void {
    this.#threads.clear();
  }
}

function getOrAdd<K, V>(map: Map<K, V>, key: K, make: () => V): V {
  let value = map.get(key);
  if (value === undefined) {
    value = make();
    map.set(key, value);
  }
  return value;
}
