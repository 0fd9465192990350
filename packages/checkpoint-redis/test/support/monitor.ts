import { randomUUID } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import type { Redis } from 'ioredis';

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
  const seen: Seen[] = [];
  const waiters: Array<() => void> = [];
  const monitor = await monitorStream(url, (seenNow) => {
    seen.push(seenNow);
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
    close: () => monitor.destroy(),
  };
}

/**
 * A MONITOR connection on a plain socket, calling `onCommand` for each command the server reports. Not
 * ioredis's `monitor()`: on a busy shared server its first monitor line can arrive in the same read as
 * MONITOR's `+OK`, before ioredis has switched the connection to monitor mode, and it fails with "Command
 * queue state error". Here the `+OK` is simply the first line.
 */
async function monitorStream(url: string, onCommand: (seen: Seen) => void): Promise<Socket> {
  const { hostname, port, username, password } = new URL(url);
  const socket = connect(Number(port || 6379), hostname.replace(/^\[|\]$/g, '') || '127.0.0.1');
  const auth = password
    ? `AUTH ${username ? `${decodeURIComponent(username)} ` : ''}${decodeURIComponent(password)}\r\n`
    : '';
  let buffered = '';
  let replies = 0;
  const expected = auth ? 2 : 1;
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      buffered += chunk;
      let end = buffered.indexOf('\r\n');
      while (end >= 0) {
        const reply = buffered.slice(0, end);
        buffered = buffered.slice(end + 2);
        end = buffered.indexOf('\r\n');
        if (replies < expected) {
          if (!reply.startsWith('+OK')) reject(new Error(`MONITOR refused: ${reply}`));
          if (++replies === expected) resolve();
          continue;
        }
        const parsed = parseMonitorLine(reply);
        if (parsed) onCommand(parsed);
      }
    });
    socket.write(`${auth}MONITOR\r\n`);
  });
  return socket;
}

/** `+1796159654.279881 [0 127.0.0.1:43416] "set" "k" "v"` → `{ source: '127.0.0.1:43416', args: [...] }`. */
function parseMonitorLine(line: string): Seen | undefined {
  const open = line.indexOf('[');
  const close = line.indexOf(']', open);
  if (!line.startsWith('+') || open < 0 || close < 0) return undefined;
  const source = line.slice(open + 1, close).split(' ')[1] ?? '';
  return { source, args: quotedArgs(line.slice(close + 1)) };
}

/** The arguments of a monitor line, each in double quotes with Redis's escapes (`\"`, `\\`, `\n`, `\xHH` …). */
function quotedArgs(text: string): string[] {
  const args: string[] = [];
  const escapes: Record<string, string> = { n: '\n', r: '\r', t: '\t', a: '\x07', b: '\b' };
  let i = text.indexOf('"');
  while (i >= 0) {
    let arg = '';
    let j = i + 1;
    for (; j < text.length && text[j] !== '"'; j++) {
      if (text[j] !== '\\') {
        arg += text[j];
      } else if (text[j + 1] === 'x') {
        arg += String.fromCharCode(Number.parseInt(text.slice(j + 2, j + 4), 16));
        j += 3;
      } else {
        const c = text[++j]!;
        arg += escapes[c] ?? c;
      }
    }
    args.push(arg);
    i = text.indexOf('"', j + 1);
  }
  return args;
}
