import { once } from 'node:events';
import { connect, createServer, type Socket } from 'node:net';

export type Relay = { port: number; cut: () => void; restore: () => void; close: () => Promise<void> };

// A TCP relay on 127.0.0.1 to `target` (host:port) that can drop every connection and refuse new ones until restored:
// a network outage between one client and its server, as long as the test wants it. `delayMs` holds back what the
// server sends (in order) that long: a slow path, as a loaded machine makes it.
export async function startRelay(
  target: { hostname: string; port: string | number },
  { delayMs = 0 } = {},
): Promise<Relay> {
  const sockets = new Set<Socket>();
  let down = false;
  const server = createServer((socket) => {
    if (down) return void socket.destroy();
    const upstream = connect(Number(target.port), target.hostname);
    for (const s of [socket, upstream]) {
      sockets.add(s);
      s.on('error', () => {});
      s.on('close', () => (sockets.delete(s), socket.destroy(), upstream.destroy()));
    }
    socket.pipe(upstream);
    if (delayMs === 0) upstream.pipe(socket);
    // timers of one duration fire in the order they were set: the bytes keep theirs
    else upstream.on('data', (chunk: Buffer) => void setTimeout(() => socket.write(chunk), delayMs));
  }).listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    port: (server.address() as { port: number }).port,
    cut() {
      down = true;
      for (const s of sockets) s.destroy();
    },
    restore: () => void (down = false),
    close() {
      for (const s of sockets) s.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
