import { PostgresCheckpointer } from '@flow/checkpoint-postgres';
import { startPostgresServer } from './support/own-servers.js';
import { describeServerRestarts } from './support/restart-suite.js';
import { builtEntry } from './support/stores.js';

// A short query timeout: a call caught by the stop fails in seconds, not the default 30.
const options = { schema: 'chaos', queryTimeout: 5000 };

describeServerRestarts({
  name: 'postgres',
  how: 'stopped (pg_ctl stop -m immediate, then -m fast) and started again',
  start: startPostgresServer,
  opener: (url) => ({
    module: builtEntry('@flow/checkpoint-postgres'),
    export: 'PostgresCheckpointer',
    args: [url, options],
  }),
  open: (url) => new PostgresCheckpointer(url, options),
});
