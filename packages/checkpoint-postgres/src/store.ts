import { ifStoreExists, type StoreFactory, serializerOf, takeUrlParam } from '@flow/core';
import { PostgresCheckpointer } from './postgres-checkpointer.js';

/**
 * Opens `postgres://user:pass@host:5432/db?schema=flow` stores (also `postgresql://`) for tools such as the
 * `flow` command. `?schema=` picks the schema and is taken off the URL; every other parameter goes to pg.
 */
export const stores: StoreFactory = {
  schemes: ['postgres:', 'postgresql:'],
  async open(url, options = {}) {
    const { url: target, value: schema } = takeUrlParam(url, 'schema');
    // create: false makes the backend itself refuse to create the schema, even one that appears meanwhile.
    const store = new PostgresCheckpointer(target, {
      ...(schema === undefined ? {} : { schema }),
      ...(options.mustExist ? { create: false } : {}),
      ...serializerOf(options),
    });
    return options.mustExist ? ifStoreExists(store) : store;
  },
};
