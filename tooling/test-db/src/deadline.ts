/**
 * Settles with `work`, or rejects once `ms` have passed and calls `onTimeout` so the caller can destroy the
 * socket. Drivers' own timeouts do not cover every stage (a server that accepts TCP and then says nothing),
 * so every probe also runs under this hard deadline: a probe never hangs.
 */
export async function withDeadline<T>(work: Promise<T>, ms: number, onTimeout: () => void): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      onTimeout();
      reject(new Error(`no answer within ${ms} ms`));
    }, ms);
  });
  try {
    return await Promise.race([work, expired]);
  } finally {
    clearTimeout(timer);
  }
}
