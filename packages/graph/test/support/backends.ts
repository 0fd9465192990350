import type { Checkpointer } from '@flow/core';
import { ReferenceCheckpointer } from './reference-checkpointer.js';

/** A backend the engine suites run on: a fresh, empty store per call. */
export interface Backend {
  name: string;
  create(): Promise<Checkpointer>;
}

export const backends: Backend[] = [{ name: 'reference', create: async () => new ReferenceCheckpointer() }];
