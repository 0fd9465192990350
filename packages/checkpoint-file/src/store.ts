import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { flowPrefix, InvalidArgumentError, type StoreFactory, serializerOf, storeUrlPath } from '@flow/core';
import { FileCheckpointer } from './file-checkpointer.js';

function dirOf(url: string): string {
  if (!url.toLowerCase().startsWith('file://')) return storeUrlPath(url);
  try {
    return fileURLToPath(url);
  } catch (error) {
    throw new InvalidArgumentError(
      `${flowPrefix('file')}not a valid file:// URL (use file:DIR for a relative path)`,
      {
        cause: error,
      },
    );
  }
}

/** Opens `file:DIR` stores (also `file:///abs/dir`) for tools such as the `flow` command. */
export const stores: StoreFactory = {
  schemes: ['file:'],
  async open(url, options = {}) {
    const dir = dirOf(url);
    if (options.mustExist && !existsSync(dir)) return undefined;
    return new FileCheckpointer(dir, serializerOf(options));
  },
};
