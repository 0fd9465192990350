import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { type Lease, MAX_LEASE_MS } from '@flow/core';
import { afterAll, expect, it, vi } from 'vitest';
import { checkpoint, range } from '../builders.js';
import { type ConformanceSuite, describerFor } from '../define-suite.js';
import { expectFlowError } from '../expect-error.js';
import { ChildPool } from '../process/child-pool.js';
import { kitTask } from '../process/kit-tasks.js';
import { HOSTILE_IDS, INVALID_IDS } from './thread-ids.js';

/** Starting node processes on a busy machine takes a while; the process tests get at least this long. */
const MIN_PROCESS_TIMEOUT = 60_000;
/** How far a store's clock (Postgres, Redis) may be from this process's in the expiry checks. */
const CLOCK_SLACK_MS = 5_000;
/** A lease long enough never to run out during a test. */
const LONG = 60_000;

function expiresMs(lease: Lease | undefined): number {
  return Date.parse(lease?.expiresAt ?? '');
}

/**
 * Leases: one owner runs a thread at a time. A live lease refuses other owners; it ends by expiry, by
 * release, or at once when its owner process is known to be gone (same host, no such pid).
 */
export const leasesSuite: ConformanceSuite = {
  title: 'leases',
  define(kit, harness) {
    if (!kit.declares.leases) {
      // Said in the test name on purpose: a run without the capability must show that leases went unchecked.
      it('leases: not declared by harness (capabilities.leases), so leases are not checked', () => {
        expect(kit.declares.leases).toBe(false);
      });
      return;
    }

    it('acquireLease on a free thread answers the lease: thread, owner, this host and pid, expiresAt ≈ now + ttl', async () => {
      const cp = await kit.create();
      const before = Date.now();
      const lease = await cp.acquireLease('t', { owner: 'worker-a', ttlMs: LONG });
      const after = Date.now();
      expect(lease).toEqual({
        thread: 't',
        owner: 'worker-a',
        host: hostname(),
        pid: process.pid,
        expiresAt: expect.any(String),
      });
      expect(new Date(lease!.expiresAt).toISOString()).toBe(lease!.expiresAt);
      expect(expiresMs(lease)).toBeGreaterThanOrEqual(before + LONG - CLOCK_SLACK_MS);
      expect(expiresMs(lease)).toBeLessThanOrEqual(after + LONG + CLOCK_SLACK_MS);
    });

    it('getLease answers the live lease, and undefined on a thread with none', async () => {
      const cp = await kit.create();
      expect(await cp.getLease('t')).toBeUndefined();
      const lease = await cp.acquireLease('t', { owner: 'worker-a', ttlMs: LONG });
      expect(await cp.getLease('t')).toEqual(lease);
      expect(await cp.getLease('other')).toBeUndefined();
    });

    it('another owner is refused while the lease is live, and the lease does not change', async () => {
      const cp = await kit.create();
      const held = await cp.acquireLease('t', { owner: 'worker-a', ttlMs: LONG });
      expect(await cp.acquireLease('t', { owner: 'worker-b', ttlMs: LONG })).toBeUndefined();
      expect(await cp.getLease('t')).toEqual(held);
      expect(await cp.acquireLease('u', { owner: 'worker-b', ttlMs: LONG })).toMatchObject({
        owner: 'worker-b',
      });
    });

    it('acquiring your own live lease renews it', async () => {
      const cp = await kit.create();
      const first = await cp.acquireLease('t', { owner: 'worker-a', ttlMs: 10_000 });
      const again = await cp.acquireLease('t', { owner: 'worker-a', ttlMs: LONG });
      expect(again?.owner).toBe('worker-a');
      expect(expiresMs(again)).toBeGreaterThan(expiresMs(first));
      expect(await cp.getLease('t')).toEqual(again);
    });

    it('renewLease extends the owner’s lease; a non-owner’s renew answers false and changes nothing', async () => {
      const cp = await kit.create();
      const first = await cp.acquireLease('t', { owner: 'worker-a', ttlMs: 10_000 });
      expect(await cp.renewLease('t', { owner: 'worker-b', ttlMs: LONG })).toBe(false);
      expect(await cp.getLease('t')).toEqual(first);
      expect(await cp.renewLease('t', { owner: 'worker-a', ttlMs: LONG })).toBe(true);
      const renewed = await cp.getLease('t');
      expect(renewed?.owner).toBe('worker-a');
      expect(expiresMs(renewed)).toBeGreaterThan(expiresMs(first));
      expect(await cp.renewLease('free', { owner: 'worker-a', ttlMs: LONG })).toBe(false);
      expect(await cp.getLease('free')).toBeUndefined();
    });

    it('releaseLease frees the thread for another owner; a non-owner’s release changes nothing', async () => {
      const cp = await kit.create();
      const held = await cp.acquireLease('t', { owner: 'worker-a', ttlMs: LONG });
      await cp.releaseLease('t', 'worker-b');
      expect(await cp.getLease('t')).toEqual(held);
      await cp.releaseLease('t', 'worker-a');
      expect(await cp.getLease('t')).toBeUndefined();
      await cp.releaseLease('t', 'worker-a');
      await cp.releaseLease('never-leased', 'worker-a');
      expect(await cp.acquireLease('t', { owner: 'worker-b', ttlMs: LONG })).toMatchObject({
        owner: 'worker-b',
      });
      expect(await cp.renewLease('t', { owner: 'worker-a', ttlMs: LONG })).toBe(false);
    });

    it('a lease expires after its ttl: getLease answers undefined, another owner takes it, the old owner cannot renew', async () => {
      const cp = await kit.create();
      // A second of ttl: on a loaded machine a file or SQLite store's acquire and read took over 300 ms.
      await cp.acquireLease('t', { owner: 'worker-a', ttlMs: 1000 });
      expect((await cp.getLease('t'))?.owner).toBe('worker-a');
      await sleep(1500);
      expect(await cp.getLease('t')).toBeUndefined();
      expect(await cp.renewLease('t', { owner: 'worker-a', ttlMs: LONG })).toBe(false);
      expect(await cp.acquireLease('t', { owner: 'worker-b', ttlMs: LONG })).toMatchObject({
        owner: 'worker-b',
      });
      expect(await cp.renewLease('t', { owner: 'worker-a', ttlMs: LONG })).toBe(false);
      expect((await cp.getLease('t'))?.owner).toBe('worker-b');
    });

    if (kit.declares.storeClock) {
      it("expiry is judged by the store's clock: a process whose clock runs a day ahead still sees a live lease as live", async () => {
        const cp = await kit.create();
        await cp.acquireLease('t', { owner: 'worker-a', ttlMs: LONG });
        const now = Date.now();
        const ahead = vi.spyOn(Date, 'now').mockReturnValue(now + 86_400_000);
        try {
          expect((await cp.getLease('t'))?.owner).toBe('worker-a');
          expect(await cp.acquireLease('t', { owner: 'worker-b', ttlMs: LONG })).toBeUndefined();
          expect(await cp.renewLease('t', { owner: 'worker-a', ttlMs: LONG })).toBe(true);
        } finally {
          ahead.mockRestore();
        }
        // Renewed by the store's clock too: a day of this process's skew is not in the new expiry.
        expect(expiresMs(await cp.getLease('t')) - now).toBeLessThan(LONG + CLOCK_SLACK_MS);
        expect(expiresMs(await cp.getLease('t')) - now).toBeGreaterThan(LONG - CLOCK_SLACK_MS);
      });
    } else {
      // Said in the test name on purpose: a run without the capability must show that skew went unchecked.
      it("leases: store clock not declared by harness (capabilities.storeClock), so this process's clock judges expiry and skew is not checked", () => {
        expect(kit.declares.storeClock).toBe(false);
      });
    }

    it('leases are independent of checkpoints: listThreads ignores them, a put keeps them, deleteThread removes them', async () => {
      const cp = await kit.create();
      const held = await cp.acquireLease('t', { owner: 'worker-a', ttlMs: LONG });
      expect(await cp.listThreads()).toEqual([]);
      expect(await cp.get('t')).toBeUndefined();
      await cp.put(checkpoint('t', 0));
      expect(await cp.getLease('t')).toEqual(held);
      await cp.acquireLease('u', { owner: 'worker-a', ttlMs: LONG });
      expect(await cp.deleteThread('t')).toBe(1);
      expect(await cp.getLease('t')).toBeUndefined();
      await cp.deleteThread('u');
      expect(await cp.getLease('u')).toBeUndefined();
      expect(await cp.acquireLease('t', { owner: 'worker-b', ttlMs: LONG })).toMatchObject({
        owner: 'worker-b',
      });
    });

    it('hostile thread ids and owner names are stored faithfully, each lease apart from the others', async () => {
      const cp = await kit.create();
      const ids = HOSTILE_IDS.slice(0, 24);
      for (const [i, id] of ids.entries()) {
        const owner = ids[(i + 1) % ids.length]!;
        expect(
          await cp.acquireLease(id, { owner, ttlMs: LONG }),
          `lease on ${JSON.stringify(id)}`,
        ).toMatchObject({
          thread: id,
          owner,
        });
      }
      for (const [i, id] of ids.entries()) {
        expect((await cp.getLease(id))?.owner, `owner of ${JSON.stringify(id)}`).toBe(
          ids[(i + 1) % ids.length],
        );
      }
    });

    it('invalid threads, owners and ttls are InvalidArgumentError, and no lease is taken', async () => {
      const cp = await kit.create();
      for (const [label, bad] of INVALID_IDS) {
        const id = bad as string;
        await expectFlowError(
          () => cp.acquireLease(id, { owner: 'o', ttlMs: LONG }),
          'INVALID_ARGUMENT',
          `acquireLease(thread ${label})`,
        );
        await expectFlowError(
          () => cp.acquireLease('t', { owner: id, ttlMs: LONG }),
          'INVALID_ARGUMENT',
          `acquireLease(owner ${label})`,
        );
        await expectFlowError(
          () => cp.renewLease('t', { owner: id, ttlMs: LONG }),
          'INVALID_ARGUMENT',
          `renewLease(owner ${label})`,
        );
        await expectFlowError(
          () => cp.releaseLease('t', id),
          'INVALID_ARGUMENT',
          `releaseLease(owner ${label})`,
        );
        await expectFlowError(() => cp.getLease(id), 'INVALID_ARGUMENT', `getLease(thread ${label})`);
      }
      for (const ttlMs of [0, -1, 1.5, MAX_LEASE_MS + 1, Number.NaN, '100']) {
        await expectFlowError(
          () => cp.acquireLease('t', { owner: 'o', ttlMs: ttlMs as number }),
          'INVALID_ARGUMENT',
          `acquireLease(ttlMs ${String(ttlMs)})`,
        );
      }
      await expectFlowError(
        () => cp.acquireLease('t', null as unknown as { owner: string; ttlMs: number }),
        'INVALID_ARGUMENT',
        'acquireLease(t, null)',
      );
      expect(await cp.getLease('t')).toBeUndefined();
    });

    it('concurrent acquires by different owners: exactly one gets the lease', async () => {
      const cp = await kit.create();
      const other = kit.reopen ? await kit.reopen(cp) : cp;
      const results = await Promise.all(
        range(kit.raceWidth).map((i) =>
          (i % 2 === 0 ? cp : other).acquireLease('t', { owner: `worker-${i}`, ttlMs: LONG }),
        ),
      );
      const winners = results.filter((l) => l !== undefined);
      expect(winners).toHaveLength(1);
      expect(await cp.getLease('t')).toEqual(winners[0]);
      expect(await other.getLease('t')).toEqual(winners[0]);
    });

    if (kit.openInChild) {
      const openInChild = kit.openInChild;
      const n = kit.processes;
      const timeout = Math.max(MIN_PROCESS_TIMEOUT, harness.timeout ?? 0);
      const pool = new ChildPool(n);
      afterAll(() => pool.close());

      it(
        `${n} processes race for one lease: exactly one wins, and the lease names its pid`,
        async () => {
          const cp = await kit.create();
          const leases = await pool.run<Lease | null>(
            await openInChild(cp),
            kitTask('raceLease'),
            { thread: 'raced', ttlMs: LONG },
            timeout - 5_000,
          );
          const winners = leases.filter((l) => l !== null);
          expect(winners, 'processes that got the lease').toHaveLength(1);
          const stored = await cp.getLease('raced');
          expect(stored).toEqual(winners[0]);
          expect(stored?.pid).not.toBe(process.pid);
          // Its owner is alive (the pool keeps it running): another owner is still refused.
          expect(await cp.acquireLease('raced', { owner: 'parent', ttlMs: LONG })).toBeUndefined();
        },
        timeout,
      );

      it(
        'a lease whose owner process has exited on this host is not live: getLease answers none and it is taken at once, long before its ttl',
        async () => {
          const cp = await kit.create();
          const one = new ChildPool(1);
          let taken: Lease | null | undefined;
          try {
            [taken] = await one.run<Lease | null>(
              await openInChild(cp),
              kitTask('raceLease'),
              { thread: 'orphaned', ttlMs: MAX_LEASE_MS },
              timeout - 5_000,
            );
          } finally {
            await one.close(); // the child exits without releasing its lease
          }
          expect(taken!).toMatchObject({ thread: 'orphaned', owner: 'worker-0', host: hostname() });
          expect(taken!.pid).not.toBe(process.pid);
          // Not live: getLease answers none, as for an expired lease, so a worker does not wait on it.
          expect(await cp.getLease('orphaned')).toBeUndefined();
          const mine = await cp.acquireLease('orphaned', { owner: 'parent', ttlMs: LONG });
          expect(mine).toMatchObject({ owner: 'parent', pid: process.pid });
          expect(await cp.getLease('orphaned')).toEqual(mine);
        },
        timeout,
      );
    } else {
      it('leases: process races not declared by harness (no openInChild), so leases across processes are not checked', () => {
        expect(kit.openInChild).toBeUndefined();
      });
    }
  },
};

/** Runs only the leases suite: `describeLeases('mine', harness)` (needs `capabilities.leases`). */
export const describeLeases = describerFor(leasesSuite);
