/**
 * One `abort` listener on a caller's signal, however many runs and nodes wait on it: a signal shared by many
 * concurrent calls (an app-wide shutdown signal), or one call fanning out to many nodes, would otherwise
 * collect a listener per node and make Node warn `MaxListenersExceededWarning`. The listener is removed when
 * the last waiter leaves, so a long-lived signal keeps nothing of finished runs.
 */
interface Relay {
  readonly waiters: Set<() => void>;
  readonly fire: () => void;
}

const relays = new WeakMap<AbortSignal, Relay>();

/** Calls `fn` once when `signal` aborts; the function returned stops waiting (safe to call twice). */
export function onAbort(signal: AbortSignal, fn: () => void): () => void {
  if (signal.aborted) {
    // Its event has been dispatched already: a listener added now would never run.
    let waiting = true;
    queueMicrotask(() => {
      if (waiting) fn();
    });
    return () => {
      waiting = false;
    };
  }
  let relay = relays.get(signal);
  if (relay === undefined) {
    const waiters = new Set<() => void>();
    const fire = () => {
      relays.delete(signal);
      for (const waiter of [...waiters]) {
        try {
          waiter();
        } catch (error) {
          // As an event listener's error would be: reported, without stopping the other waiters.
          queueMicrotask(() => {
            throw error;
          });
        }
      }
      waiters.clear();
    };
    relay = { waiters, fire };
    relays.set(signal, relay);
    signal.addEventListener('abort', fire, { once: true });
  }
  const { waiters, fire } = relay;
  const once = () => {
    waiters.delete(once);
    fn();
  };
  waiters.add(once);
  return () => {
    if (!waiters.delete(once) || waiters.size > 0) return;
    if (relays.get(signal)?.waiters === waiters) relays.delete(signal);
    signal.removeEventListener('abort', fire);
  };
}
