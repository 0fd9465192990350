import type { Checkpointer } from '@flow/core';

/** See json-file-checkpointer.mjs. */
export declare const JsonFileCheckpointer: new (
  path: string,
  options?: { bug?: 'no-lock' },
) => Checkpointer & { readonly path: string };
