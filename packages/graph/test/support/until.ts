/** Resolves once `check` resolves true, polling every `everyMs`; rejects with `what` after `timeoutMs`. */
export async function until(
  check: () => boolean | Promise<boolean>,
  what: string,
  { timeoutMs = 15_000, everyMs = 10 } = {},
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
