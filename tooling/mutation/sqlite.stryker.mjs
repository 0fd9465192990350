import { mutationConfig } from './stryker.base.mjs';

export default mutationConfig({
  target: 'sqlite',
  mutate: [
    'packages/checkpoint-sqlite/src/**/*.ts',
    // Not the protocol, so no kit can see them; the package's own tests do: the `sqlite:` store factory of
    // the CLI, the constructor's arguments and SQLite's own options, its pragmas, and the 0600 mode of a new
    // database file.
    '!packages/checkpoint-sqlite/src/store.ts',
    '!packages/checkpoint-sqlite/src/options.ts',
    '!packages/checkpoint-sqlite/src/connection.ts',
    '!packages/checkpoint-sqlite/src/private-file.ts',
  ],
  // The goal, met (88.5 today, see the kit's README), so it cannot drop under it unnoticed.
  breakAt: 85,
});
