import { hostname } from 'node:os';
import { InvalidArgumentError } from './errors.js';
import { assertInteger, assertThreadId } from './validation.js';

/**
 * A lease on a thread: who runs it, and until when. Expiry is judged by the store's clock where it has one
 * (Postgres, Redis), so workers' clocks may disagree.
 */
export interface Lease {
  thread: string;
  owner: string;
  /** Host name and process id of the owner, so a lease whose process is gone can be taken at once. */
  host: string;
  pid: number;
  /** ISO-8601 time the lease ends unless renewed (by the store's clock). */
  expiresAt: string;
}

/** What `acquireLease` asks for. */
export interface LeaseRequest {
  owner: string;
  ttlMs: number;
}

/** A lease as a backend writes it: host and pid filled in by core. */
export interface LeaseRecord {
  owner: string;
  host: string;
  pid: number;
  ttlMs: number;
}

/** What a backend answers to a lease write: the lease it now holds, or the live one that stopped it. */
export type LeaseResult = { acquired: true; lease: Lease } | { acquired: false; holder: Lease };

/** The longest lease: one day. */
export const MAX_LEASE_MS = 86_400_000;

export function assertLeaseRequest(thread: unknown, req: unknown): asserts req is LeaseRequest {
  assertThreadId(thread);
  if (typeof req !== 'object' || req === null)
    throw new InvalidArgumentError('a lease request must be an object { owner, ttlMs }');
  assertThreadId((req as LeaseRequest).owner, 'lease owner');
  assertInteger((req as LeaseRequest).ttlMs, 'ttlMs', 1, MAX_LEASE_MS);
}

/** The record core writes for `req` from this process. */
export function leaseRecordOf(req: LeaseRequest): LeaseRecord {
  return { owner: req.owner, host: hostname(), pid: process.pid, ttlMs: req.ttlMs };
}

/**
 * Whether the lease's owner is known to be gone: it ran on this host, and no process has its pid.
 * (EPERM means the process exists under another user: alive.)
 */
export function ownerIsGone(lease: Pick<Lease, 'host' | 'pid'>): boolean {
  if (lease.host !== hostname() || !Number.isInteger(lease.pid) || lease.pid <= 0) return false;
  if (lease.pid === process.pid) return false;
  try {
    process.kill(lease.pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}
