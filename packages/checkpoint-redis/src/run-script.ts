import { explainFailure, type RedisArg, type RedisClient } from './client.js';
import type { LuaScript } from './scripts.js';

function isNoScript(error: unknown): boolean {
  return error instanceof Error && error.message.startsWith('NOSCRIPT');
}

/**
 * Calls `script` by SHA (one round trip). When the server lost its script cache (restart, failover,
 * SCRIPT FLUSH) it answers NOSCRIPT, and the script is sent whole with EVAL, which also caches it again.
 */
export async function runScript(
  client: RedisClient,
  script: LuaScript,
  keys: readonly string[],
  args: readonly RedisArg[],
): Promise<unknown> {
  try {
    return await client.evalsha(script.sha, keys.length, ...keys, ...args);
  } catch (error) {
    if (!isNoScript(error)) throw explainFailure(client, error);
    return client.eval(script.body, keys.length, ...keys, ...args).catch((e: unknown) => {
      throw explainFailure(client, e);
    });
  }
}
