import { randomBytes } from 'node:crypto';
import type { TestProject } from 'vitest/node';
import { resolveMysql } from './mysql-server.js';
import { dropTablesStartingWith } from './tables.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** URL of this run's MySQL/MariaDB server. */
    mysqlUrl: string;
    /** Start of every table prefix this run hands out, so the teardown can sweep leftovers. */
    mysqlRunPrefix: string;
  }
}

/** Finds the server once per run; at the end drops any table of this run that a failed test left behind. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const url = await resolveMysql();
  const run = `kit_${randomBytes(3).toString('hex')}_`;
  project.provide('mysqlUrl', url);
  project.provide('mysqlRunPrefix', run);
  return async () => {
    await dropTablesStartingWith(url, run);
  };
}
