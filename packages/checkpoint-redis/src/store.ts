import { ifStoreExists, type StoreFactory, serializerOf } from '@flow/core';
import { RedisCheckpointer } from './redis-checkpointer.js';

/**
 * Opens `redis://host:6379/0?prefix=flow` stores (also `rediss://`) for tools such as the `flow` command.
 * The checkpointer reads `?prefix=` from the URL itself.
 */
export const stores: StoreFactory = {
  schemes: ['redis:', 'rediss:'],
  async open(url, options = {}) {
    // create: false makes the backend itself refuse to start a prefix, even one that appears meanwhile.
    const store = new RedisCheckpointer(url, {
      ...(options.mustExist ? { create: false } : {}),
      ...serializerOf(options),
    });
    return options.mustExist ? ifStoreExists(store) : store;
  },
};
