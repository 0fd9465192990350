import { readFile, rename } from 'node:fs/promises';
import { join } from 'node:path';
import type { Lease, LeaseRecord, LeaseResult } from '@flow/core';
import { LEASE_FILE } from './layout.js';
import { hasCode, removeFile, syncDir } from './private-fs.js';
import { writeTemp } from './thread-dir.js';

/**
 * A thread's lease: `lease.json` in its directory, replaced whole (temp file, fsync, rename) and only
 * with the thread lock held, so the check and the write of every lease call are one step across
 * processes. Expiry is judged by this host's `Date.now()`; an expired lease reads as absent.
 */
interface StoredLease extends Lease {
  format: 1;
  expiresMs: number;
}

async function readStored(threadDir: string): Promise<StoredLease | undefined> {
  let text: string;
  try {
    text = await readFile(join(threadDir, LEASE_FILE), 'utf8');
  } catch (error) {
    if (hasCode(error, 'ENOENT', 'ENOTDIR')) return undefined;
    throw error;
  }
  try {
    const s = JSON.parse(text) as StoredLease;
    const ok =
      s.format === 1 &&
      typeof s.thread === 'string' &&
      typeof s.owner === 'string' &&
      typeof s.host === 'string' &&
      Number.isSafeInteger(s.pid) &&
      typeof s.expiresAt === 'string' &&
      Number.isFinite(s.expiresMs);
    // An unreadable lease file (a disk fault) protects nothing: it counts as no lease.
    return ok ? s : undefined;
  } catch {
    return undefined;
  }
}

function publicLease({ thread, owner, host, pid, expiresAt }: StoredLease): Lease {
  return { thread, owner, host, pid, expiresAt };
}

async function live(threadDir: string, thread: string): Promise<StoredLease | undefined> {
  const s = await readStored(threadDir);
  return s !== undefined && s.thread === thread && s.expiresMs > Date.now() ? s : undefined;
}

async function store(threadDir: string, lease: Omit<Lease, 'expiresAt'>, ttlMs: number): Promise<Lease> {
  const expiresMs = Date.now() + ttlMs;
  const stored: StoredLease = {
    format: 1,
    thread: lease.thread,
    owner: lease.owner,
    host: lease.host,
    pid: lease.pid,
    expiresAt: new Date(expiresMs).toISOString(),
    expiresMs,
  };
  const temp = await writeTemp(threadDir, Buffer.from(`${JSON.stringify(stored)}\n`), true);
  await rename(temp, join(threadDir, LEASE_FILE));
  await syncDir(threadDir);
  return publicLease(stored);
}

/** Takes the lease (thread lock held, directory present) unless another live owner but `replace` holds it. */
export async function writeLeaseFile(
  threadDir: string,
  thread: string,
  record: LeaseRecord,
  replace: string | undefined,
): Promise<LeaseResult> {
  const held = await live(threadDir, thread);
  if (held !== undefined && held.owner !== record.owner && held.owner !== replace) {
    return { acquired: false, holder: publicLease(held) };
  }
  const lease = await store(
    threadDir,
    { thread, owner: record.owner, host: record.host, pid: record.pid },
    record.ttlMs,
  );
  return { acquired: true, lease };
}

/** Extends `owner`'s live lease (thread lock held); false when `owner` does not hold it. */
export async function extendLeaseFile(
  threadDir: string,
  thread: string,
  owner: string,
  ttlMs: number,
): Promise<boolean> {
  const held = await live(threadDir, thread);
  if (held === undefined || held.owner !== owner) return false;
  await store(threadDir, held, ttlMs);
  return true;
}

/** Removes the lease if `owner` holds it, live or expired (thread lock held). */
export async function dropLeaseFile(threadDir: string, thread: string, owner: string): Promise<void> {
  const held = await readStored(threadDir);
  if (held === undefined || held.thread !== thread || held.owner !== owner) return;
  await removeFile(join(threadDir, LEASE_FILE));
  await syncDir(threadDir);
}

/** The live lease, read without the lock (the file is replaced whole, so it is never half-written). */
export async function readLeaseFile(threadDir: string, thread: string): Promise<Lease | undefined> {
  const held = await live(threadDir, thread);
  return held && publicLease(held);
}
