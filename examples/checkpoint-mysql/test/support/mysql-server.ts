import { createConnection } from 'mysql2/promise';

/** The server the tests use when `FLOW_TEST_MYSQL_URL` is not set. */
export const LOCAL_MYSQL_URL = 'mysql://root@127.0.0.1:3306/test';

/** Hides a URL's password before it is printed. */
export function redact(url: string): string {
  return url.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:***@');
}

/** Resolves when a server at `url` accepts a connection and answers `SELECT 1` within `timeoutMs`. */
export async function probe(url: string, timeoutMs = 2000): Promise<void> {
  const conn = await createConnection({ uri: url, connectTimeout: timeoutMs });
  try {
    await conn.query({ sql: 'SELECT 1', timeout: timeoutMs });
  } finally {
    conn.destroy();
  }
}

/**
 * The MySQL/MariaDB server of this test run: `FLOW_TEST_MYSQL_URL` when set (and then it must answer), else
 * the local default port, else an error that says how to provide one. Never skips.
 */
export async function resolveMysql(env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const given = env.FLOW_TEST_MYSQL_URL;
  if (given !== undefined && given !== '') {
    try {
      await probe(given);
      return given;
    } catch (error) {
      throw new Error(
        `FLOW_TEST_MYSQL_URL=${redact(given)} does not answer (${(error as Error).message}); ` +
          'fix the URL or unset it to use the local server',
      );
    }
  }
  try {
    await probe(LOCAL_MYSQL_URL);
    return LOCAL_MYSQL_URL;
  } catch (error) {
    throw new Error(
      `no MySQL/MariaDB server for the tests: nothing answers at ${LOCAL_MYSQL_URL} ` +
        `(${(error as Error).message}). Start one (on Debian: ` +
        'start-stop-daemon --start --oknodo --background --exec /usr/sbin/mariadbd), or set ' +
        'FLOW_TEST_MYSQL_URL=mysql://user:password@host:3306/database',
    );
  }
}
