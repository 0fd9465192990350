import { describe, expect, it } from 'vitest';
import { LOCAL_MYSQL_URL, resolveMysql } from './support/mysql-server.js';

describe('finding the test server', () => {
  it('uses FLOW_TEST_MYSQL_URL when it answers', async () => {
    await expect(resolveMysql({ FLOW_TEST_MYSQL_URL: LOCAL_MYSQL_URL })).resolves.toBe(LOCAL_MYSQL_URL);
  });

  it('fails at once, naming the variable and hiding the password, when the given server does not answer', async () => {
    const started = Date.now();
    const error = await resolveMysql({ FLOW_TEST_MYSQL_URL: 'mysql://ci:s3cret@127.0.0.1:1/test' }).catch(
      (e: unknown) => e as Error,
    );
    expect(String(error)).toMatch(
      /FLOW_TEST_MYSQL_URL=mysql:\/\/ci:\*\*\*@127\.0\.0\.1:1\/test does not answer/,
    );
    expect(String(error)).not.toContain('s3cret');
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it('falls back to the local port without the variable', async () => {
    await expect(resolveMysql({})).resolves.toBe(LOCAL_MYSQL_URL);
  });
});
