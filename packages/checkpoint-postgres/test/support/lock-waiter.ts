import type pg from 'pg';

/**
 * Resolves once some session waits for the advisory lock of `thread` in `schema` (a 64-bit key: classid
 * high, objid low), asked on `admin`.
 */
export async function waitForLockWaiter(admin: pg.Pool, schema: string, thread: string): Promise<void> {
  for (let i = 0; i < 500; i++) {
    const { rows } = await admin.query(
      `SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND NOT granted
         AND ((classid::bigint << 32) | objid::bigint) = hashtextextended($1, 0)`,
      [`${schema}.${thread}`],
    );
    if (rows.length > 0) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error('no session ever waited for the lock');
}
