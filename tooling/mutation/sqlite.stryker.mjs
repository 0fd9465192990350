import { mutationConfig } from './stryker.base.mjs';

export default mutationConfig({
  target: 'sqlite',
  mutate: ['packages/checkpoint-sqlite/src/**/*.ts'],
  breakAt: 85,
});
