import { randomBytes } from 'node:crypto';
import { isFlowError } from '@flow/core';
import { startFaultProxy } from '@flow/fault-proxy';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { PostgresCheckpointer } from '../src/index.js';
import { checkpoint } from './support/checkpoints.js';
import { freshSchemas, url } from './support/stores.js';

const fresh = freshSchemas();

async function until(what: string, check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** Ends every session named `name` (its application_name), asked on `admin`. */
async function terminate(admin: pg.Client, name: string): Promise<void> {
  await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1', [
    name,
  ]);
}

/** Waits until the session named `name` waits on a lock (one `admin` holds), then ends it. */
async function terminateOnceWaiting(admin: pg.Client, name: string, what: string): Promise<void> {
  await until(`${what} to wait on the lock`, async () => {
    const { rows } = await admin.query(
      "SELECT 1 FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'",
      [name],
    );
    return rows.length > 0;
  });
  await terminate(admin, name);
}

describe('a dropped connection', () => {
  it('fails the put in flight with StorageError carrying the driver error, and the instance recovers', async () => {
    const schema = fresh();
    const name = `flow_drop_${randomBytes(4).toString('hex')}`;
    const pool = new pg.Pool({ connectionString: url, application_name: name, max: 2 });
    pool.on('error', () => {});
    const cp = new PostgresCheckpointer(pool, { schema });
    await cp.put(checkpoint('t', 0));

    // A separate admin connection holds a lock so the next put waits on the server, then kills its backend.
    const admin = new pg.Client(url);
    await admin.connect();
    try {
      await admin.query('BEGIN');
      await admin.query(`LOCK TABLE "${schema}".threads IN ACCESS EXCLUSIVE MODE`);
      const put = cp.put(checkpoint('t', 1)).catch((e: unknown) => e);
      await terminateOnceWaiting(admin, name, 'the put');
      const error = await put;
      expect(isFlowError(error, 'STORAGE'), String(error)).toBe(true);
      const cause = (error as Error).cause as { code?: string } | undefined;
      expect(cause).toBeInstanceOf(Error);
      // 57P01: terminating connection due to administrator command.
      expect(cause?.code).toBe('57P01');
      await admin.query('ROLLBACK');
    } finally {
      await admin.end();
    }

    // Nothing of the failed put was written, and the same instance works again.
    expect((await cp.get('t'))?.step).toBe(0);
    expect((await cp.put(checkpoint('t', 1))).revision).toBe(1);
    expect((await cp.listThreads())[0]?.latestStep).toBe(1);
    await cp.close();
    await pool.end();
  });

  // deleteThread and prune (and setup) run in a transaction on a client checked out of the pool, which no longer
  // hears that client's 'error' event: unheard, Node crashed the whole process when the server dropped it.
  const calls: [string, (cp: PostgresCheckpointer) => Promise<unknown>][] = [
    ['deleteThread', (cp) => cp.deleteThread('t')],
    ['prune', (cp) => cp.prune('t', { beforeStep: 1 })],
  ];
  for (const [what, call] of calls) {
    it(`fails a ${what} whose transaction's connection is dropped with StorageError, and the process lives on`, async () => {
      const schema = fresh();
      const writer = new PostgresCheckpointer(url, { schema });
      await writer.put(checkpoint('t', 0));
      await writer.close();
      const name = `flow_drop_tx_${randomBytes(4).toString('hex')}`;
      const owned = new URL(url);
      owned.searchParams.set('application_name', name);
      // A pool of the checkpointer's own: an owned pool's 'error' listener does not hear checked-out clients.
      const cp = new PostgresCheckpointer(owned.toString(), { schema });
      await cp.put(checkpoint('t', 1));
      const admin = new pg.Client(url);
      await admin.connect();
      const crashes: unknown[] = [];
      const onCrash = (error: unknown) => crashes.push(error);
      process.on('uncaughtException', onCrash);
      try {
        await admin.query('BEGIN');
        // The thread's lock (statements.ts threadLock), which both take first: the call waits on it.
        await admin.query('SELECT pg_advisory_xact_lock(hashtextextended($1 || $2, 0))', [`${schema}.`, 't']);
        const pending = call(cp).then(
          () => undefined,
          (e: unknown) => e,
        );
        await terminateOnceWaiting(admin, name, `the ${what}`);
        const error = await pending;
        await new Promise((r) => setTimeout(r, 100));
        expect(crashes, 'errors no one heard').toEqual([]);
        expect(isFlowError(error, 'STORAGE'), String(error)).toBe(true);
        await admin.query('ROLLBACK');
      } finally {
        process.off('uncaughtException', onCrash);
        await admin.end();
      }
      // The same instance works again.
      expect((await cp.get('t'))?.step).toBe(1);
      await cp.close();
    });
  }

  it('idle connections killed between calls are replaced without an error', async () => {
    const schema = fresh();
    const name = `flow_idle_${randomBytes(4).toString('hex')}`;
    const owned = new URL(url);
    owned.searchParams.set('application_name', name);
    const cp = new PostgresCheckpointer(owned.toString(), { schema });
    await Promise.all([cp.put(checkpoint('t', 0)), cp.put(checkpoint('u', 0))]);
    const admin = new pg.Client(url);
    await admin.connect();
    await terminate(admin, name);
    await admin.end();
    // The pool hears of the dead idle connections (and the checkpointer's listener keeps the process alive).
    await new Promise((r) => setTimeout(r, 100));
    expect((await cp.get('t'))?.step).toBe(0);
    await cp.close();
  });
});

describe('a server that is away', () => {
  it('makes setup and put reject promptly with StorageError; once back, the same instance works', async () => {
    const schema = fresh();
    // The server goes away (and comes back) behind a proxy, without touching the shared server.
    const server = new URL(url);
    const proxy = await startFaultProxy({
      target: { host: server.hostname, port: Number(server.port || 5432) },
    });
    const down = () => {
      proxy.refuse(true);
      proxy.cut();
    };
    const up = () => proxy.refuse(false);
    const proxied = new URL(url);
    proxied.hostname = proxy.host;
    proxied.port = String(proxy.port);
    down();
    const cp = new PostgresCheckpointer(proxied.toString(), { schema });
    const started = Date.now();
    const error = await cp.put(checkpoint('t', 0)).catch((e: unknown) => e);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(isFlowError(error, 'STORAGE'), String(error)).toBe(true);
    expect((error as Error).message).toContain('[flow:postgres] setup failed');
    expect((error as Error).cause).toBeInstanceOf(Error);
    await expect(cp.get('t')).rejects.toMatchObject({ code: 'STORAGE' });

    up();
    expect((await cp.put(checkpoint('t', 0))).revision).toBe(1);
    expect((await cp.get('t'))?.revision).toBe(1);

    // Cut again mid-life: the next call fails, then the instance recovers with the server.
    down();
    await expect(cp.put(checkpoint('t', 1))).rejects.toMatchObject({ code: 'STORAGE' });
    up();
    expect((await cp.put(checkpoint('t', 1))).revision).toBe(1);
    expect((await cp.list('t')).map((c) => c.step)).toEqual([1, 0]);
    await cp.close();
    await proxy.close();
  });
});
