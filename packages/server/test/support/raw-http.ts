import net from 'node:net';

/**
 * One HTTP/1.1 request written by hand, for what fetch will not send: a `Host` of our choosing, two fields
 * of one name (`Host` is the address asked, unless given). Connects to `address` (any local address, to be a client that is not on loopback).
 */
export function rawRequest(
  address: string,
  port: number,
  head: { method?: string; path: string; headers: [string, string][]; body?: string },
): Promise<{ status: number; body: string }> {
  const { method = 'GET', path, headers, body } = head;
  let text = `${method} ${path} HTTP/1.1\r\nconnection: close\r\n`;
  if (!headers.some(([name]) => name.toLowerCase() === 'host')) text += `host: ${address}:${port}\r\n`;
  for (const [name, value] of headers) text += `${name}: ${value}\r\n`;
  if (body !== undefined) text += `content-length: ${Buffer.byteLength(body)}\r\n`;
  text += `\r\n${body ?? ''}`;
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, address, () => socket.end(text));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const answer = Buffer.concat(chunks).toString('utf8');
      const split = answer.indexOf('\r\n\r\n');
      resolve({ status: Number(answer.slice(9, 12)), body: answer.slice(split + 4) });
    });
  });
}
