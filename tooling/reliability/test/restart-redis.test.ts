import { RedisCheckpointer } from '@flow/checkpoint-redis';
import { startRedisServer } from './support/own-servers.js';
import { describeServerRestarts } from './support/restart-suite.js';
import { builtEntry } from './support/stores.js';

const options = { prefix: 'chaos' };

describeServerRestarts({
  name: 'redis',
  how: '(appendonly yes, appendfsync always) killed with SIGKILL and started again',
  start: startRedisServer,
  opener: (url) => ({
    module: builtEntry('@flow/checkpoint-redis'),
    export: 'RedisCheckpointer',
    args: [url, options],
  }),
  open: (url) => new RedisCheckpointer(url, options),
});
