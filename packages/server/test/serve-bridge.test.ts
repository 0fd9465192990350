import { describe, expect, it } from 'vitest';
import type { FlowHandler } from '../src/handler.js';
import { serve } from '../src/index.js';

/** `serve` sends whatever Response a Fetch handler other than createHandler's returns. */
describe('serve writes every kind of Response', () => {
  async function through(handler: FlowHandler) {
    const server = await serve(handler, { port: 0 });
    try {
      const response = await fetch(`${server.url}/x`);
      return { status: response.status, headers: response.headers, body: await response.text() };
    } finally {
      await server.close();
    }
  }

  it('a Response made elsewhere (a stream body, multi-byte text) goes out whole with its length and headers', async () => {
    const text = 'é'.repeat(40_000);
    const answer = await through(async () => {
      const bytes = new TextEncoder().encode(text);
      const stream = new ReadableStream({
        start(c) {
          c.enqueue(bytes.subarray(0, 1000));
          c.enqueue(bytes.subarray(1000));
          c.close();
        },
      });
      return new Response(stream, { status: 201, headers: { 'x-kind': 'stream' } });
    });
    expect(answer).toMatchObject({ status: 201, body: text });
    expect(answer.headers.get('x-kind')).toBe('stream');
    expect(answer.headers.get('content-length')).toBe(String(Buffer.byteLength(text)));
  });
});
