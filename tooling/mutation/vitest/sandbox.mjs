/**
 * Resolves the kit and core to the copies inside Stryker's sandbox (built before it was made), not through
 * node_modules back to the working tree: rebuilding the kit while a long run goes on cannot change that run.
 */
export function sandboxed(relative) {
  return new URL(`../../../${relative}`, import.meta.url).pathname;
}

export const KIT = {
  '@flow/checkpoint-conformance': sandboxed('packages/checkpoint-conformance/dist/index.js'),
};
export const CORE_DIST = { '@flow/core': sandboxed('packages/core/dist/index.js') };
export const CORE_SRC = { '@flow/core': sandboxed('packages/core/src/index.ts') };
