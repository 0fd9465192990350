import type { Lease, LeaseRecord, LeaseResult } from '@flow/core';

interface StoredLease extends Lease {
  expiresMs: number;
}

/** Thread leases of one MemoryCheckpointer, judged by `Date.now()`; an expired one counts as absent. */
export class MemoryLeases {
  readonly #leases = new Map<string, StoredLease>();

  #live(thread: string): StoredLease | undefined {
    const lease = this.#leases.get(thread);
    if (lease === undefined) return undefined;
    // Stryker disable next-line EqualityOperator: the protocol leaves open the one millisecond at expiresAt
    if (lease.expiresMs > Date.now()) return lease;
    this.#leases.delete(thread);
    return undefined;
  }

  write(thread: string, record: LeaseRecord, replace: string | undefined): LeaseResult {
    const live = this.#live(thread);
    if (
      live !== undefined &&
      live.owner !== record.owner &&
      // Stryker disable next-line ConditionalExpression: every lease here has this pid: core never asks to replace it
      live.owner !== replace
    ) {
      // Stryker disable next-line BooleanLiteral: core answers undefined either way (this pid is never a gone owner)
      return { acquired: false, holder: publicLease(live) };
    }
    const stored = stamp({ thread, owner: record.owner, host: record.host, pid: record.pid }, record.ttlMs);
    this.#leases.set(thread, stored);
    return { acquired: true, lease: publicLease(stored) };
  }

  extend(thread: string, owner: string, ttlMs: number): boolean {
    const live = this.#live(thread);
    if (live === undefined || live.owner !== owner) return false;
    this.#leases.set(thread, stamp(live, ttlMs));
    return true;
  }

  drop(thread: string, owner: string): void {
    if (this.#leases.get(thread)?.owner === owner) this.#leases.delete(thread);
  }

  read(thread: string): Lease | undefined {
    const live = this.#live(thread);
    return live && publicLease(live);
  }

  delete(thread: string): void {
    this.#leases.delete(thread);
  }

  // Stryker disable next-line BlockStatement: called only by close(), after which every method rejects
  clear(): void {
    this.#leases.clear();
  }
}

function stamp(lease: Omit<Lease, 'expiresAt'>, ttlMs: number): StoredLease {
  const expiresMs = Date.now() + ttlMs;
  return {
    thread: lease.thread,
    owner: lease.owner,
    host: lease.host,
    pid: lease.pid,
    expiresAt: new Date(expiresMs).toISOString(),
    expiresMs,
  };
}

function publicLease({ thread, owner, host, pid, expiresAt }: StoredLease): Lease {
  return { thread, owner, host, pid, expiresAt };
}
