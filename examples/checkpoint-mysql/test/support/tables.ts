import { createConnection } from 'mysql2/promise';

let counter = 0;

/** A table prefix no other test (in this run or another) uses: `<run prefix><pid><n>_`, within 32 characters. */
export function uniquePrefix(runPrefix: string): string {
  counter += 1;
  return `${runPrefix}${process.pid.toString(36)}_${counter.toString(36)}_`;
}

/** Drops every table whose name starts with `start` in the URL's database; resolves with how many. */
export async function dropTablesStartingWith(url: string, start: string): Promise<number> {
  const conn = await createConnection({ uri: url });
  try {
    const [rows] = await conn.execute(
      `SELECT TABLE_NAME AS name FROM information_schema.TABLES
       WHERE TABLE_SCHEMA = DATABASE() AND LEFT(TABLE_NAME, CHAR_LENGTH(?)) = ?`,
      [start, start],
    );
    const names = (rows as { name: string }[]).map((r) => `\`${r.name.replaceAll('`', '``')}\``);
    if (names.length > 0) await conn.query(`DROP TABLE IF EXISTS ${names.join(', ')}`);
    return names.length;
  } finally {
    await conn.end();
  }
}
