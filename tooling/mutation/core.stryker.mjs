import { mutationConfig } from './stryker.base.mjs';

// The rules every backend inherits from core, checked through the SQLite backend's kit harnesses.
export default mutationConfig({
  target: 'core',
  mutate: [
    'packages/core/src/base-checkpointer.ts',
    'packages/core/src/record.ts',
    'packages/core/src/validation.ts',
  ],
  breakAt: 85,
});
