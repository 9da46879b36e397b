// /health and /ready: liveness, and readiness checks of the dependencies.
import { Router } from 'express';
import { withTimeout } from './metrics.ts';

// A dependency's readiness check: resolves when reachable.
export type ReadinessCheck = () => Promise<unknown>;

// Short: a load balancer's probe must not pile up behind a database that stopped answering.
const READY_TIMEOUT_MS = 1500;

/**
 * /healthz (and its old name /health): the process is up, no I/O, so a slow database never restarts a healthy
 * process. /readyz: every check within the timeout, else 503 naming each failing one, so traffic goes elsewhere.
 */
export function healthRoutes(checks: Record<string, ReadinessCheck>, timeoutMs = READY_TIMEOUT_MS): Router {
  const router = Router();
  for (const path of ['/healthz', '/health']) router.get(path, (_req, res) => void res.json({ status: 'ok' }));
  router.get('/readyz', async (req, res) => {
    const names = Object.keys(checks);
    const results = await Promise.allSettled(names.map((n) => withTimeout(checks[n](), timeoutMs, n)));
    const states: Record<string, 'ok' | 'failed'> = {};
    for (const [i, name] of names.entries()) {
      const r = results[i];
      states[name] = r.status === 'fulfilled' ? 'ok' : 'failed';
      // the cause goes to the logs only: this answer is public, and a driver's message names internal hosts
      if (r.status === 'rejected') req.log.warn({ err: r.reason, check: name }, 'readiness check failed');
    }
    const ready = Object.values(states).every((s) => s === 'ok');
    res.status(ready ? 200 : 503).json({ status: ready ? 'ok' : 'unavailable', checks: states });
  });
  return router;
}
