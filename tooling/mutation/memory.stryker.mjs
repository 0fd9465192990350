import { mutationConfig } from './stryker.base.mjs';

export default mutationConfig({
  target: 'memory',
  mutate: ['packages/checkpoint-memory/src/**/*.ts'],
  breakAt: 90,
});
