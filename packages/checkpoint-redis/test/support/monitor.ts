import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';

/** One command as MONITOR reports it: its arguments (name first) and who sent it (`ip:port` or `lua`). */
export interface Seen {
  args: string[];
  source: string;
}

/**
 * Records what one connection sends, through MONITOR on a separate connection. `during(fn)` returns the
 * commands `connection` sent while `fn` ran, plus the commands Lua ran on keys under `prefix`; ECHO markers
 * sent on the watched connection fence the window, so replies racing the monitor stream cannot blur it.
 */
export async function watch(url: string, connection: Redis, prefix: string) {
  // CLIENT INFO is Redis 6.2+; CLIENT ID and CLIENT LIST work on every server the backend supports.
  const id = String(await connection.client('ID'));
  const line = String(await connection.client('LIST'))
    .split('\n')
    .find((l) => l.startsWith(`id=${id} `));
  const addr = line && /(?:^| )addr=(\S+)/.exec(line)?.[1];
  if (!addr) throw new Error(`no addr for client ${id} in CLIENT LIST`);
  const monitor = await new Redis(url).monitor();
  const seen: Seen[] = [];
  const waiters: Array<() => void> = [];
  monitor.on('monitor', (_time: string, args: string[], source: string) => {
    seen.push({ args, source });
    for (const w of waiters.splice(0)) w();
  });
  const mark = async (): Promise<number> => {
    const token = randomUUID();
    await connection.echo(token);
    const found = () =>
      seen.findIndex((s) => s.source === addr && s.args[0] === 'echo' && s.args[1] === token);
    while (found() < 0) await new Promise<void>((r) => waiters.push(r));
    return found();
  };
  const mine = (s: Seen) =>
    s.source === addr || (s.source === 'lua' && s.args.slice(1).some((a) => a.startsWith(`${prefix}:`)));
  return {
    async during(fn: () => Promise<unknown>): Promise<{ sent: Seen[]; lua: Seen[] }> {
      const start = await mark();
      await fn();
      const end = await mark();
      const window = seen.slice(start + 1, end).filter(mine);
      return { sent: window.filter((s) => s.source === addr), lua: window.filter((s) => s.source === 'lua') };
    },
    close: () => monitor.disconnect(),
  };
}
