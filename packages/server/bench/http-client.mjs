// The bench's HTTP client: one keep-alive socket, one request at a time, answers with a Content-Length
// (the server's always have one). node:http's own client costs about as much per request as the route
// being measured, so with it the bench would time the client; this one is a socket write and a parse.
import net from 'node:net';

/** Opens a client to `url` (`http://host:port`); `request(method, path, headers, body?)` → `{ status, body }`. */
export async function openClient(url) {
  const { hostname, port } = new URL(url);
  const socket = net.connect(Number(port), hostname);
  socket.setNoDelay(true);
  await new Promise((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  let buffered = Buffer.alloc(0);
  let onData;
  let failed;
  socket.on('data', (chunk) => {
    buffered = buffered.length === 0 ? chunk : Buffer.concat([buffered, chunk]);
    onData?.();
  });
  socket.on('error', (error) => {
    failed = error;
    onData?.();
  });
  socket.on('close', () => {
    failed ??= new Error('the server closed the connection');
    onData?.();
  });
  const host = `${hostname}:${port}`;
  return {
    request(method, path, headers, body) {
      return new Promise((resolve, reject) => {
        onData = () => {
          if (failed !== undefined) return reject(failed);
          const end = buffered.indexOf('\r\n\r\n');
          if (end < 0) return;
          const head = buffered.subarray(0, end).toString('latin1');
          const length = /\r\ncontent-length: *(\d+)/i.exec(head);
          if (length === null) return reject(new Error(`an answer without Content-Length: ${head}`));
          const size = end + 4 + Number(length[1]);
          if (buffered.length < size) return;
          const text = buffered.subarray(end + 4, size).toString('utf8');
          buffered = buffered.subarray(size);
          onData = undefined;
          resolve({ status: Number(head.slice(9, 12)), body: JSON.parse(text) });
        };
        let head = `${method} ${path} HTTP/1.1\r\nhost: ${host}\r\n`;
        for (const [name, value] of Object.entries(headers)) head += `${name}: ${value}\r\n`;
        if (body !== undefined) head += `content-length: ${Buffer.byteLength(body)}\r\n`;
        socket.write(body === undefined ? `${head}\r\n` : `${head}\r\n${body}`);
      });
    },
    close: () => socket.destroy(),
  };
}
