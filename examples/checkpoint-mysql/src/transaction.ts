import type { MysqlConnection, MysqlPool } from './driver.js';

/** InnoDB rolled the whole transaction back to break a deadlock: running it again is safe. */
const ER_LOCK_DEADLOCK = 1213;
/** Attempts before a deadlock is reported; racing writers of one thread settle within a few. */
const ATTEMPTS = 8;

function errno(error: unknown): unknown {
  return (error as { errno?: unknown } | null)?.errno;
}

/**
 * Runs `work` in a transaction on one pooled connection: COMMIT when it resolves, ROLLBACK when it throws.
 * InnoDB may pick the transaction as a deadlock victim when writers of one thread race (it then rolls it back
 * entirely); that attempt is run again from the start, as the MySQL manual advises, so its checks run again too.
 */
export async function inTransaction<T>(
  pool: MysqlPool,
  work: (db: MysqlConnection) => Promise<T>,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const db = await pool.getConnection();
    let broken = false;
    try {
      await db.query('START TRANSACTION');
      const result = await work(db);
      await db.query('COMMIT');
      return result;
    } catch (error) {
      await db.query('ROLLBACK').catch(() => {
        // The connection is gone or confused: never hand it to the next caller.
        broken = true;
      });
      if (errno(error) !== ER_LOCK_DEADLOCK || attempt === ATTEMPTS) throw error;
    } finally {
      if (broken) db.destroy();
      else db.release();
    }
  }
}
