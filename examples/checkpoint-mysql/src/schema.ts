import type { MysqlQueryable } from './driver.js';

/** The tables of one store, quoted: `<prefix>checkpoints`, `<prefix>threads`, `<prefix>writes`, `<prefix>leases`. */
export interface Tables {
  checkpoints: string;
  threads: string;
  writes: string;
  leases: string;
  /** The same names unquoted, as information_schema spells them. */
  names: { checkpoints: string; threads: string };
}

export function tablesFor(prefix: string): Tables {
  // The prefix is validated to [a-z0-9_], so backquoting is all the quoting it needs.
  const quoted = (name: string) => `\`${prefix}${name}\``;
  return {
    checkpoints: quoted('checkpoints'),
    threads: quoted('threads'),
    writes: quoted('writes'),
    leases: quoted('leases'),
    names: { checkpoints: `${prefix}checkpoints`, threads: `${prefix}threads` },
  };
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

/** MySQL's "Duplicate column name": another process added the column first. */
const ER_DUP_FIELDNAME = 1060;

/**
 * Adds the columns a table created by an earlier release lacks. Each column comes in its own `ALTER TABLE`,
 * which is atomic; when another process runs the same migration at once, the loser's `ALTER` fails with
 * ER_DUP_FIELDNAME and the column is there all the same.
 */
async function addMissingColumns(
  db: MysqlQueryable,
  table: string,
  name: string,
  columns: Record<string, string>,
): Promise<void> {
  const [rows] = await db.execute(
    `SELECT COLUMN_NAME AS name FROM information_schema.COLUMNS
     WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ?`,
    [name],
  );
  const present = new Set((rows as { name: string }[]).map((r) => r.name));
  for (const [column, type] of Object.entries(columns)) {
    if (present.has(column)) continue;
    await db.query(`ALTER TABLE ${table} ADD COLUMN ${column} ${type}`).catch((error: unknown) => {
      if ((error as { errno?: unknown }).errno !== ER_DUP_FIELDNAME) throw error;
    });
  }
}

/**
 * Creates the tables when missing, then adds what a store of an earlier release lacks (`error` and `meta`:
 * its rows read as not failed, meta `{}`). `CREATE TABLE IF NOT EXISTS` is idempotent and safe when several
 * processes run it at once (the server serialises DDL on a table name), so setup needs no lock.
 */
export async function createTables(db: MysqlQueryable, t: Tables): Promise<void> {
  const collation = await threadCollation(db);
  const id = `VARCHAR(512) CHARACTER SET utf8mb4 COLLATE ${collation} NOT NULL`;
  // Serialized values: any text the serializer emits (JSON by default, but a custom one need not be).
  const text = 'LONGTEXT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL';
  // JSON text from core (a run error, meta); NULL in rows written before these columns existed.
  const json = 'LONGTEXT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NULL';
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
  await addMissingColumns(db, t.checkpoints, t.names.checkpoints, { error: json, meta: json });
  await addMissingColumns(db, t.threads, t.names.threads, { error: json });
  // node and key may be 512 characters each: with the thread, more than InnoDB's 3072-byte key. The key
  // holds their SHA-256 instead (of node, U+0000, key: neither may contain U+0000), the columns the text.
  await db.query(`
    CREATE TABLE IF NOT EXISTS ${t.writes} (
      thread     ${id},
      step       INT UNSIGNED NOT NULL,
      write_hash BINARY(32) NOT NULL,
      node       ${id},
      \`key\`      ${id},
      value      ${text},
      PRIMARY KEY (thread, step, write_hash)
    ) ENGINE = InnoDB`);
  await db.query(`
    CREATE TABLE IF NOT EXISTS ${t.leases} (
      thread     ${id},
      owner      ${id},
      host       TEXT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
      pid        INT NOT NULL,
      expires_at DATETIME(3) NOT NULL,
      PRIMARY KEY (thread)
    ) ENGINE = InnoDB`);
}
