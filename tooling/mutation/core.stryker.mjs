import { mutationConfig } from './stryker.base.mjs';

// The rules every backend inherits from core, checked through the memory backend's kit harnesses.
export default mutationConfig({
  target: 'core',
  mutate: [
    'packages/core/src/base-checkpointer.ts',
    'packages/core/src/record.ts',
    'packages/core/src/validation.ts',
  ],
  // Today's score, so it cannot drop unnoticed (see the kit's README for what survives).
  breakAt: 54,
});
