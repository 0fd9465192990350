import type { Checkpointer } from '@flow/core';
import type { CompiledGraph } from '@flow/graph';

export function reviewGraph(checkpointer: Checkpointer): CompiledGraph<any>;
export function twoQuestionsGraph(checkpointer: Checkpointer): CompiledGraph<any>;
export function loopGraph(checkpointer: Checkpointer): CompiledGraph<any>;
export function clashGraph(checkpointer: Checkpointer): CompiledGraph<any>;
export function openStoreFromEnv(): Promise<Checkpointer>;
