import { createConnection } from 'mysql2/promise';
import type { MysqlQueryable } from '../../src/index.js';
import { threadCollation } from '../../src/schema.js';

/** The two tables exactly as the first release created them, with one running and one done thread. */
export async function firstReleaseStore(url: string, prefix: string): Promise<void> {
  const conn = await createConnection({ uri: url });
  try {
    const collation = await threadCollation(conn as unknown as MysqlQueryable);
    const id = `VARCHAR(512) CHARACTER SET utf8mb4 COLLATE ${collation} NOT NULL`;
    const text = 'LONGTEXT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL';
    await conn.query(`CREATE TABLE \`${prefix}checkpoints\` (
      thread ${id}, step INT UNSIGNED NOT NULL, revision BIGINT UNSIGNED NOT NULL, ts_ms BIGINT NOT NULL,
      next ${text}, interrupted BOOLEAN NOT NULL,
      interrupt_node TEXT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NULL,
      interrupt_payload ${text}, state ${text}, PRIMARY KEY (thread, step)) ENGINE = InnoDB`);
    await conn.query(`CREATE TABLE \`${prefix}threads\` (
      thread ${id}, latest_step INT UNSIGNED NOT NULL, interrupted BOOLEAN NOT NULL, done BOOLEAN NOT NULL,
      ts_ms BIGINT NOT NULL, PRIMARY KEY (thread), KEY interrupted_threads (interrupted, thread)) ENGINE = InnoDB`);
    await conn.query(`INSERT INTO \`${prefix}checkpoints\` VALUES
      ('run', 0, 1, 0, '["a"]', FALSE, NULL, 'null', '{"n":0}'),
      ('end', 0, 1, 0, '[]', FALSE, NULL, 'null', '{"n":1}')`);
    await conn.query(
      `INSERT INTO \`${prefix}threads\` VALUES ('run', 0, FALSE, FALSE, 0), ('end', 0, FALSE, TRUE, 0)`,
    );
  } finally {
    await conn.end();
  }
}
