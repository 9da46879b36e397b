import { createServer, type IncomingHttpHeaders } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';

// A merchant's webhook endpoint on 127.0.0.1: records every request and answers as the test programs it.
export type Received = {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
  remotePort: number | undefined;
};
export type Answer = { status?: number; body?: string; headers?: Record<string, string>; hang?: boolean };
export type Responder = (req: Received, index: number) => Answer;

export type Receiver = Awaited<ReturnType<typeof startReceiver>>;

export async function startReceiver(responder: Responder = () => ({ status: 200, body: 'ok' })) {
  const requests: Received[] = [];
  let respond = responder;
  let changed: () => void = () => {};
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const received = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: performance.now(),
        remotePort: req.socket.remotePort,
      };
      requests.push(received);
      const answer = respond(received, requests.length - 1);
      changed();
      if (answer.hang) return; // never answers: the sender's timeout has to end it
      res.writeHead(answer.status ?? 200, answer.headers).end(answer.body ?? '');
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;

  return {
    port,
    requests,
    url: (path = '/hook') => `http://127.0.0.1:${port}${path}`,
    reply(next: Responder) {
      respond = next;
    },
    // Resolves with the requests once there are at least `count`; rejects after `timeoutMs`.
    async waitFor(count: number, timeoutMs = 10_000): Promise<Received[]> {
      const deadline = Date.now() + timeoutMs;
      while (requests.length < count) {
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`receiver got ${requests.length} requests, expected ${count}`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, left);
          changed = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
      return requests.slice();
    },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

// Polls until `check` returns a truthy value (a database row, a count...), or fails after `timeoutMs`.
export async function waitUntil<T>(
  check: () => Promise<T>,
  timeoutMs = 10_000,
  what = 'condition',
): Promise<Exclude<T, false | null | undefined | 0 | ''>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value as Exclude<T, false | null | undefined | 0 | ''>;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
