import { describeProcessRaces } from '@flow/checkpoint-conformance';
import type { PostgresCheckpointer } from '../src/index.js';
import { ensureBuilt } from './ensure-dist.js';
import { dropSchema, freshCheckpointer, url } from './harness.js';

// The kit's races between processes: its child processes open the built package (dist/) on the same schema.
describeProcessRaces<PostgresCheckpointer>('postgres', {
  create: async () => freshCheckpointer(),
  cleanup: (cp) => dropSchema(url, cp.schema),
  openInChild: (cp) => {
    ensureBuilt();
    return {
      module: new URL('../dist/index.js', import.meta.url),
      export: 'PostgresCheckpointer',
      args: [url, { schema: cp.schema }],
    };
  },
});
