// Webhook receivers: a well-behaved one that records every event's arrivals, and a flaky one that answers 500, hangs
// past the delivery timeout or drops the connection part of the time (the deliveries to it must not hold the others).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { once } from 'node:events';

export type Receiver = { url: string; close: () => Promise<void> };
export type Recorder = Receiver & { arrivals: Map<string, number[]> }; // event id -> arrival times (ms)

async function listen(server: Server): Promise<string> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return `http://127.0.0.1:${(server.address() as { port: number }).port}/hook`;
}

const closer = (server: Server) => async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
};

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString()));
    req.on('error', reject);
  });
}

export async function startRecorder(): Promise<Recorder> {
  const arrivals = new Map<string, number[]>();
  const server = createServer((req, res) => void record(req, res));
  async function record(req: IncomingMessage, res: ServerResponse) {
    const body = await readBody(req).catch(() => '');
    try {
      const id = (JSON.parse(body) as { id: string }).id;
      arrivals.set(id, [...(arrivals.get(id) ?? []), Date.now()]);
    } catch {
      /* not an event */
    }
    res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
  }
  server.keepAliveTimeout = 60_000; // well-behaved: never closes a kept-alive socket under the sender
  return { url: await listen(server), arrivals, close: closer(server) };
}

export type FlakyCounts = { ok: number; error500: number; hang: number; drop: number };

export async function startFlaky(hangMs: number): Promise<Receiver & { counts: FlakyCounts }> {
  const counts: FlakyCounts = { ok: 0, error500: 0, hang: 0, drop: 0 };
  const server = createServer((req, res) => void answer(req, res));
  async function answer(req: IncomingMessage, res: ServerResponse) {
    await readBody(req).catch(() => '');
    const r = Math.random();
    if (r < 0.25) {
      counts.error500++;
      res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":"chaos"}');
    } else if (r < 0.35) {
      counts.hang++;
      setTimeout(() => res.writeHead(200).end('late'), hangMs).unref();
    } else if (r < 0.45) {
      counts.drop++;
      req.socket.destroy();
    } else {
      counts.ok++;
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    }
  }
  return { url: await listen(server), counts, close: closer(server) };
}

// A dead endpoint: every delivery fails (500). Its webhooks must end disabled (disabledReason FAILING) without
// holding back anyone else's deliveries.
export async function startDead(): Promise<Receiver & { requests: () => number }> {
  let requests = 0;
  const server = createServer((req, res) => {
    void readBody(req)
      .catch(() => '')
      .then(() => {
        requests++;
        res.writeHead(500, { 'content-type': 'text/plain' }).end('down');
      });
  });
  return { url: await listen(server), requests: () => requests, close: closer(server) };
}
