import type { PgPool, PgPoolClient, PgQueryConfig } from '../../src/index.js';

/** A pool wrapper that records every statement sent, through the pool or a checked-out client. */
export interface CountingPool extends PgPool {
  readonly sent: PgQueryConfig[];
  reset(): void;
}

export function countingPool(inner: PgPool): CountingPool {
  const sent: PgQueryConfig[] = [];
  return {
    sent,
    reset: () => {
      sent.length = 0;
    },
    query: (config) => {
      sent.push(config);
      return inner.query(config);
    },
    connect: async (): Promise<PgPoolClient> => {
      const client = await inner.connect();
      return {
        query: (config) => {
          sent.push(config);
          return client.query(config);
        },
        release: (error) => client.release(error),
      };
    },
    end: () => inner.end(),
  };
}
