import type { MysqlQueryable } from './driver.js';

/** The tables of one store: `<prefix>checkpoints` and `<prefix>threads`, quoted. */
export interface Tables {
  checkpoints: string;
  threads: string;
}

export function tablesFor(prefix: string): Tables {
  // The prefix is validated to [a-z0-9_], so backquoting is all the quoting it needs.
  return { checkpoints: `\`${prefix}checkpoints\``, threads: `\`${prefix}threads\`` };
}

/**
 * The collation of thread ids: binary (code-point order, case- and accent-sensitive, never normalised) and
 * NO PAD. The NO PAD part matters: `utf8mb4_bin` is a PAD SPACE collation, so it compares 'a' and 'a ' as
 * equal and the primary key would merge two threads. MariaDB calls it `utf8mb4_nopad_bin`, MySQL 8
 * `utf8mb4_0900_bin`.
 */
export async function threadCollation(db: MysqlQueryable): Promise<string> {
  const [rows] = await db.query(
    `SELECT COLLATION_NAME AS name FROM information_schema.COLLATIONS
     WHERE COLLATION_NAME IN ('utf8mb4_nopad_bin', 'utf8mb4_0900_bin')`,
  );
  const names = (rows as { name: string }[]).map((r) => r.name);
  const found = names.includes('utf8mb4_nopad_bin') ? 'utf8mb4_nopad_bin' : names[0];
  if (found === undefined) {
    throw new Error(
      'the server has no binary NO PAD utf8mb4 collation (utf8mb4_nopad_bin or utf8mb4_0900_bin): ' +
        'MariaDB 10.2+ or MySQL 8.0+ is needed',
    );
  }
  return found;
}

/**
 * Creates the tables when missing. `CREATE TABLE IF NOT EXISTS` is idempotent and safe when several
 * processes run it at once (the server serialises DDL on a table name), so setup needs no lock.
 */
export async function createTables(db: MysqlQueryable, t: Tables): Promise<void> {
  const collation = await threadCollation(db);
  const id = `VARCHAR(512) CHARACTER SET utf8mb4 COLLATE ${collation} NOT NULL`;
  // Serialized values: any text the serializer emits (JSON by default, but a custom one need not be).
  const text = 'LONGTEXT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL';
  await db.query(`
    CREATE TABLE IF NOT EXISTS ${t.checkpoints} (
      thread            ${id},
      step              INT UNSIGNED NOT NULL,
      revision          BIGINT UNSIGNED NOT NULL,
      ts_ms             BIGINT NOT NULL,
      next              ${text},
      interrupted       BOOLEAN NOT NULL,
      interrupt_node    TEXT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NULL,
      interrupt_payload ${text},
      state             ${text},
      PRIMARY KEY (thread, step)
    ) ENGINE = InnoDB`);
  await db.query(`
    CREATE TABLE IF NOT EXISTS ${t.threads} (
      thread      ${id},
      latest_step INT UNSIGNED NOT NULL,
      interrupted BOOLEAN NOT NULL,
      done        BOOLEAN NOT NULL,
      ts_ms       BIGINT NOT NULL,
      PRIMARY KEY (thread),
      KEY interrupted_threads (interrupted, thread)
    ) ENGINE = InnoDB`);
}
