// Requests not yet answered, counted so a shutdown can wait for them.
import type { RequestHandler } from 'express';

// Counts requests whose handler has not answered yet, so a shutdown can wait for them before closing the pools
// (server.close() only waits for sockets, and a client that hangs up leaves its handler still running).
export function inflightTracker(): { middleware: RequestHandler; drained: (timeoutMs: number) => Promise<void> } {
  let active = 0;
  const middleware: RequestHandler = (_req, res, next) => {
    active++;
    const end = res.end.bind(res);
    res.end = ((...args: Parameters<typeof res.end>) => {
      active--;
      return end(...args);
    }) as typeof res.end;
    next();
  };
  const drained = async (timeoutMs: number) => {
    const until = Date.now() + timeoutMs;
    while (active > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
  };
  return { middleware, drained };
}
