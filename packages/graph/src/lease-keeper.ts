import { randomUUID } from 'node:crypto';
import type { Checkpointer } from '@flow/core';

/**
 * A call's lease on its thread: taken before the call's first write, renewed every `ttlMs / 3` by a timer
 * (never a write per step), released when the call ends. A renewal that finds the lease gone tries to take
 * it again; when another owner holds it, `lost` turns true and the run stops at its next step.
 */
export class LeaseKeeper {
  readonly owner = randomUUID();
  #timer: NodeJS.Timeout | undefined;
  #held = false;
  #lost = false;
  /** Set by `release`: a renewal still in flight then never takes the lease again. */
  #released = false;
  /** The renewal in flight, which `release` waits for (its store call may land after a release sent later). */
  #ticking: Promise<void> | undefined;

  constructor(
    readonly checkpointer: Checkpointer,
    readonly thread: string,
    readonly ttlMs: number,
  ) {}

  /** Whether another owner took the thread while this call ran. */
  get lost(): boolean {
    return this.#lost;
  }

  /** Takes the lease; `false` when another owner holds a live one (nothing changes then). */
  async acquire(): Promise<boolean> {
    this.#held = (await this.checkpointer.acquireLease(this.thread, this.request())) !== undefined;
    return this.#held;
  }

  /**
   * Starts renewing. A call that goes on without the lease (an answer, which the claim decides) keeps
   * trying to take it instead.
   */
  keep(): void {
    this.#timer = setInterval(
      () => {
        // One renewal at a time: a slow store never has two in flight, and `release` waits for the one there is.
        if (this.#ticking !== undefined) return;
        this.#ticking = this.#tick().finally(() => {
          this.#ticking = undefined;
        });
      },
      Math.max(1, Math.floor(this.ttlMs / 3)),
    );
    this.#timer.unref();
  }

  async #tick(): Promise<void> {
    try {
      if (this.#held && (await this.checkpointer.renewLease(this.thread, this.request()))) return;
      if (this.#released) return;
      const taken = await this.checkpointer.acquireLease(this.thread, this.request());
      if (taken !== undefined) this.#held = true;
      else if (this.#held) this.#lost = true;
    } catch {
      // A store that is briefly unreachable: the next tick tries again (the lease lasts three ticks).
    }
  }

  /**
   * Stops renewing and releases the lease (errors ignored: it expires anyway), after the renewal in flight,
   * if any: sent first, it could otherwise reach the store after the release and take the lease again.
   */
  async release(): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    this.#released = true;
    if (this.#ticking !== undefined) {
      // Bounded: a store that never answers must not hang the call (by then the lease has expired anyway).
      let timer: NodeJS.Timeout | undefined;
      const expired = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, this.ttlMs);
        timer.unref();
      });
      await Promise.race([this.#ticking, expired]);
      clearTimeout(timer);
    }
    if (!this.#held) return;
    this.#held = false;
    await this.checkpointer.releaseLease(this.thread, this.owner).catch(() => {});
  }

  private request() {
    return { owner: this.owner, ttlMs: this.ttlMs };
  }
}
