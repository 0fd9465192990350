export { type PlainJson, toPlainJson } from '@flow/core';
export { runCli } from './cli.js';
export { CliError, UsageError } from './errors.js';
export type { CliIo, OutputStream } from './io.js';
export { parseOlderThan } from './parse-options.js';
export { candidatePackages, findStoreFactory } from './store/backend-registry.js';
export { type OpenStoreOptions, openStore, withStore } from './store/open-store.js';
export { DEFAULT_STORE, parseStoreUrl, type StoreKind, type StoreSpec } from './store/store-url.js';
