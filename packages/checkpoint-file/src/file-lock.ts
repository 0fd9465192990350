import { randomBytes } from 'node:crypto';
import { type FileHandle, link, open, readFile, rename, unlink } from 'node:fs/promises';
import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { hasCode, removeFile, writeNewFile } from './private-fs.js';

/** What a lock file holds: who took it, so a waiter can tell a crashed holder from a busy one. */
export interface LockOwner {
  pid: number;
  host: string;
  token: string;
  at: string;
}

/** How lock files are judged and waited for. */
export interface FileLockOptions {
  /** A lock older than this is stale even when its pid is alive (a reused pid, another host). */
  staleMs: number;
  /** How long to wait for a busy lock before failing. */
  timeoutMs: number;
}

/**
 * A lock file with no readable owner is stale after this long: the owner is written in the same call
 * that creates the file, so an empty one that stays empty was left by a crash.
 */
const UNREADABLE_STALE_MS = 2_000;
const MAX_BACKOFF_MS = 25;

/** Whether a process with this pid runs on this machine (EPERM: it does, as another user). */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return hasCode(error, 'EPERM');
  }
}

/** Thrown when a lock stays busy past `timeoutMs`; `owner` says who holds it. */
export class LockTimeoutError extends Error {
  constructor(
    readonly path: string,
    readonly owner: LockOwner | undefined,
    timeoutMs: number,
  ) {
    const who = owner ? `pid ${owner.pid} on ${owner.host} since ${owner.at}` : 'an unknown owner';
    super(`lock ${path} is still held by ${who} after ${timeoutMs} ms; remove it if that process is gone`);
    this.name = 'LockTimeoutError';
  }
}

function parseOwner(text: string): LockOwner | undefined {
  try {
    const o = JSON.parse(text) as LockOwner;
    return typeof o.pid === 'number' && typeof o.host === 'string' && typeof o.token === 'string'
      ? o
      : undefined;
  } catch {
    return undefined;
  }
}

/** Why a lock may be broken, or `undefined` while its holder may still be working. */
export function staleReason(
  owner: LockOwner | undefined,
  ageMs: number,
  staleMs: number,
): string | undefined {
  if (owner === undefined) return ageMs > UNREADABLE_STALE_MS ? 'unreadable and old' : undefined;
  if (owner.host === hostname() && !pidAlive(owner.pid)) return `pid ${owner.pid} is gone`;
  if (ageMs > staleMs) return `older than ${staleMs} ms`;
  return undefined;
}

/**
 * An exclusive lock held as a file created with O_EXCL. A holder that crashed cannot wedge it: a waiter
 * breaks it when the holder's pid is gone (same host) or the lock is older than `staleMs`.
 */
export class FileLock {
  #owner: LockOwner | undefined;

  constructor(
    readonly path: string,
    private readonly options: FileLockOptions,
  ) {}

  /** Takes the lock, waiting with a short backoff while another process holds it. Resolves `true` when it broke a stale one. */
  async acquire(): Promise<boolean> {
    const owner: LockOwner = {
      pid: process.pid,
      host: hostname(),
      token: randomBytes(8).toString('hex'),
      at: new Date().toISOString(),
    };
    const body = Buffer.from(JSON.stringify(owner));
    const deadline = Date.now() + this.options.timeoutMs;
    let broke = false;
    let backoff = 1;
    for (;;) {
      try {
        await writeNewFile(this.path, body, false);
        this.#owner = owner;
        return broke;
      } catch (error) {
        if (!hasCode(error, 'EEXIST')) throw error;
      }
      const seen = await this.inspect();
      if (seen === undefined) continue; // released in between: try again at once
      if (staleReason(seen.owner, seen.ageMs, this.options.staleMs) !== undefined) {
        await this.breakStale(seen.text);
        broke = true;
        continue;
      }
      if (Date.now() >= deadline) throw new LockTimeoutError(this.path, seen.owner, this.options.timeoutMs);
      await sleep(backoff + Math.random() * backoff);
      backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
    }
  }

  /** Gives the lock up, unless someone broke it meanwhile (then the file is theirs and stays). */
  async release(): Promise<void> {
    const owner = this.#owner;
    this.#owner = undefined;
    if (owner === undefined) return;
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch (error) {
      if (hasCode(error, 'ENOENT')) return;
      throw error;
    }
    if (parseOwner(text)?.token === owner.token) await removeFile(this.path);
  }

  /** Reads the current lock file and its age from one open handle, so both describe the same file. */
  private async inspect(): Promise<
    { text: string; owner: LockOwner | undefined; ageMs: number } | undefined
  > {
    let fh: FileHandle;
    try {
      fh = await open(this.path, 'r');
    } catch (error) {
      if (hasCode(error, 'ENOENT')) return undefined;
      throw error;
    }
    try {
      const st = await fh.stat();
      const text = await fh.readFile('utf8');
      return { text, owner: parseOwner(text), ageMs: Date.now() - st.mtimeMs };
    } finally {
      await fh.close();
    }
  }

  /**
   * Removes a stale lock whose content was `seenText`. It is renamed aside first and checked: when two
   * waiters break the same lock, the second one's rename may catch the first one's fresh lock, which it
   * then links back in place.
   */
  private async breakStale(seenText: string): Promise<void> {
    const aside = `${this.path}.stale-${process.pid}-${randomBytes(4).toString('hex')}`;
    try {
      await rename(this.path, aside);
    } catch (error) {
      if (hasCode(error, 'ENOENT')) return;
      throw error;
    }
    let moved: string;
    try {
      moved = await readFile(aside, 'utf8');
    } catch (error) {
      if (hasCode(error, 'ENOENT')) return;
      throw error;
    }
    if (moved !== seenText) {
      try {
        await link(aside, this.path);
      } catch (error) {
        if (!hasCode(error, 'EEXIST')) throw error;
      }
    }
    await unlink(aside);
  }
}
