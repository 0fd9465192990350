import type { Checkpointer } from '@flow/core';
import type { Context } from '../context.js';

/** `flow setup`: creates the store or applies its pending migrations (idempotent). */
export async function setupCommand(ctx: Context, store: Checkpointer, display: string): Promise<void> {
  await store.setup();
  ctx.print(`store ready: ${display}`);
}
