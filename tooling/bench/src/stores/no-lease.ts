import type { Checkpointer, Lease, LeaseRequest } from '@flow/core';

/**
 * The store with its lease calls made no-ops (every acquire succeeds, nothing is sent): the bench's "leases
 * off", since the engine always takes one. Everything else goes to `store` unchanged.
 */
export function withoutLeases(store: Checkpointer): Checkpointer {
  const noop: Partial<Checkpointer> = {
    acquireLease: async (thread: string, req: LeaseRequest): Promise<Lease> => ({
      thread,
      owner: req.owner,
      host: 'none',
      pid: 0,
      expiresAt: new Date(Date.now() + req.ttlMs).toISOString(),
    }),
    renewLease: async () => true,
    releaseLease: async () => {},
    getLease: async () => undefined,
  };
  return new Proxy(store, {
    get(target, key) {
      if (typeof key === 'string' && key in noop) return noop[key as keyof Checkpointer];
      const value = Reflect.get(target, key, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
