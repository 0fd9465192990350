import { existsSync } from 'node:fs';
import { type StoreFactory, serializerOf, storeUrlPath } from '@flow/core';
import { SqliteCheckpointer } from './sqlite-checkpointer.js';

/**
 * Opens `sqlite:PATH` stores (also `sqlite:///abs/path.db`, `sqlite://rel.db`, `sqlite::memory:`) for
 * tools such as the `flow` command.
 */
export const stores: StoreFactory = {
  schemes: ['sqlite:'],
  async open(url, options = {}) {
    const path = storeUrlPath(url);
    if (options.mustExist && path !== ':memory:' && !existsSync(path)) return undefined;
    return new SqliteCheckpointer(path, serializerOf(options));
  },
};
