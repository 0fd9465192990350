import { type MigrationDialect, migrate as runMigrations, VERSION_TABLE } from '@flow/core';
import type { MysqlConnection, MysqlPool, MysqlQueryable } from './driver.js';

/**
 * The tables of one store, quoted: `<prefix>checkpoints`, `<prefix>threads`, `<prefix>writes`,
 * `<prefix>leases`, `<prefix>chunks`, and core's version table `<prefix>migrations`.
 */
export interface Tables {
  checkpoints: string;
  threads: string;
  writes: string;
  leases: string;
  chunks: string;
  migrations: string;
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
    chunks: quoted('chunks'),
    migrations: quoted(VERSION_TABLE),
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

/** Serialized values: any text the serializer emits (JSON by default, but a custom one need not be). */
const TEXT = 'LONGTEXT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL';
/** JSON text from core (a run error, meta); NULL in rows written before these columns existed. */
const JSON_TEXT = 'LONGTEXT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NULL';

/** A chunk id (core's `[0-9A-Za-z._-]{1,40}`): ASCII, compared byte for byte. */
export const CHUNK_ID = 'VARCHAR(40) CHARACTER SET ascii COLLATE ascii_bin';

/** The rows of a JSON array of chunk ids, as a table with one column `id` (the form of `refs`). */
export function idsOf(json: string): string {
  return `JSON_TABLE(${json}, '$[*]' COLUMNS (id ${CHUNK_ID} PATH '$'))`;
}

/** Reads and the prune of chunks rely on JSON_TABLE: refuse a server without it, saying what is needed. */
async function assertJsonTable(db: MysqlQueryable): Promise<void> {
  try {
    await db.query(`SELECT j.id FROM ${idsOf("'[]'")} AS j`);
  } catch (error) {
    throw new Error('the server has no JSON_TABLE: MariaDB 10.6+ or MySQL 8.0+ is needed', { cause: error });
  }
}

async function idColumn(db: MysqlQueryable): Promise<string> {
  return `VARCHAR(512) CHARACTER SET utf8mb4 COLLATE ${await threadCollation(db)} NOT NULL`;
}

/**
 * The schema changes, in order. MySQL commits DDL at once (no transaction holds it), so each one is written to
 * be run again safely: `CREATE TABLE IF NOT EXISTS`, and only the columns a table lacks. Stores of the releases
 * before the version table ran them without recording them; they run again on such a store and change only
 * what it lacks.
 */
function migrations(t: Tables): MigrationDialect<MysqlConnection>['migrations'] {
  return [
    {
      version: 1,
      name: 'checkpoints and thread summaries',
      async apply(db) {
        const id = await idColumn(db);
        await db.query(`
          CREATE TABLE IF NOT EXISTS ${t.checkpoints} (
            thread            ${id},
            step              INT UNSIGNED NOT NULL,
            revision          BIGINT UNSIGNED NOT NULL,
            ts_ms             BIGINT NOT NULL,
            next              ${TEXT},
            interrupted       BOOLEAN NOT NULL,
            interrupt_node    TEXT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NULL,
            interrupt_payload ${TEXT},
            state             ${TEXT},
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
      },
    },
    {
      version: 2,
      name: 'failed runs, meta, per-step writes and leases',
      async apply(db) {
        const id = await idColumn(db);
        await addMissingColumns(db, t.checkpoints, t.names.checkpoints, {
          error: JSON_TEXT,
          meta: JSON_TEXT,
        });
        await addMissingColumns(db, t.threads, t.names.threads, { error: JSON_TEXT });
        // node and key may be 512 characters each: with the thread, more than InnoDB's 3072-byte key. The key
        // holds their SHA-256 instead (of node, U+0000, key: neither may contain U+0000), the columns the text.
        await db.query(`
          CREATE TABLE IF NOT EXISTS ${t.writes} (
            thread     ${id},
            step       INT UNSIGNED NOT NULL,
            write_hash BINARY(32) NOT NULL,
            node       ${id},
            \`key\`      ${id},
            value      ${TEXT},
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
      },
    },
    {
      version: 3,
      name: 'chunks and refs of linear state',
      // The parts of linear states that steps share, once per (thread, id), and each checkpoint's `refs` (a
      // JSON array of chunk ids; NULL for a whole state, as every row written before is).
      async apply(db) {
        await assertJsonTable(db);
        const id = await idColumn(db);
        await addMissingColumns(db, t.checkpoints, t.names.checkpoints, { refs: JSON_TEXT });
        await db.query(`
          CREATE TABLE IF NOT EXISTS ${t.chunks} (
            thread ${id},
            id     ${CHUNK_ID} NOT NULL,
            data   ${TEXT},
            PRIMARY KEY (thread, id)
          ) ENGINE = InnoDB`);
      },
    },
  ];
}

/** MySQL's "Table doesn't exist". */
const ER_NO_SUCH_TABLE = 1146;
/** How long setup waits for another process's migration before it fails. */
const LOCK_WAIT_SECONDS = 60;
/**
 * The server-wide name of a store's migration lock: its database and table prefix, hashed to stay within
 * MySQL's 64-character limit on lock names.
 */
const LOCK_NAME = "CONCAT('flow:', SHA1(CONCAT(DATABASE(), '.', ?)))";

function mysqlDialect(pool: MysqlPool, t: Tables, prefix: string): MigrationDialect<MysqlConnection> {
  return {
    backend: 'mysql',
    store: `tables ${prefix}*`,
    packageName: 'flow-checkpoint-mysql',
    migrations: migrations(t),
    connect: () => pool.getConnection(),
    // After a failure the connection may still hold the lock: closing it releases the lock on the server.
    release: (db, failure) => (failure === undefined ? db.release() : db.destroy()),
    async currentVersion(db) {
      try {
        const [rows] = await db.query(`SELECT max(version) AS version FROM ${t.migrations}`);
        return Number((rows as { version: number | null }[])[0]?.version ?? 0);
      } catch (error) {
        if ((error as { errno?: unknown }).errno === ER_NO_SUCH_TABLE) return 0;
        throw error;
      }
    },
    // A named lock (GET_LOCK) serialises setup across processes; it is held by this connection until released.
    async locked(db, work) {
      const [rows] = await db.execute(`SELECT GET_LOCK(${LOCK_NAME}, ?) AS got`, [prefix, LOCK_WAIT_SECONDS]);
      if ((rows as { got: number | null }[])[0]?.got !== 1) {
        throw new Error(`another setup held the migration lock of ${prefix}* for ${LOCK_WAIT_SECONDS} s`);
      }
      try {
        await work(db);
      } finally {
        await db.execute(`SELECT RELEASE_LOCK(${LOCK_NAME})`, [prefix]);
      }
    },
    prepareVersionTable: (db) =>
      db.query(`
        CREATE TABLE IF NOT EXISTS ${t.migrations} (
          version    INT UNSIGNED NOT NULL PRIMARY KEY,
          name       VARCHAR(255) CHARACTER SET utf8mb4 NOT NULL,
          applied_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3)
        ) ENGINE = InnoDB`),
    async appliedVersions(db) {
      const [rows] = await db.query(`SELECT version FROM ${t.migrations}`);
      return (rows as { version: number }[]).map((r) => Number(r.version));
    },
    recordVersion: (db, migration) =>
      db.execute(`INSERT INTO ${t.migrations} (version, name) VALUES (?, ?)`, [
        migration.version,
        migration.name,
      ]),
  };
}

/**
 * Creates the tables, or brings a store of an earlier release up to date, with core's migration runner: the
 * versions recorded in `<prefix>migrations`, applied under a named server lock. A store already at the latest
 * version costs one query and takes no lock.
 */
export async function migrate(pool: MysqlPool, t: Tables, prefix: string): Promise<void> {
  await runMigrations(mysqlDialect(pool, t, prefix));
}
