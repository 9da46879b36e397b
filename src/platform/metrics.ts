// Prometheus metrics: a registry per process, its scrape server and the process' metrics.
import type { Sql } from './sql.ts';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { once } from 'node:events';
import { timingSafeEqual, createHash } from 'node:crypto';
import type { RequestHandler } from 'express';
import { collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { PgBoss } from 'pg-boss';
import type { Logger } from './logger.ts';
import { errorBody } from './error-codes.ts';

// Each process (and each app a test starts) has its own registry: prom-client's global one refuses a second app.
export function createRegistry(): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return registry;
}

// What a scrape-time gauge reads with: rows of a cheap query.
export type ScrapeQuery = Sql['query'];

// A scrape waits at most this long for the database: a slow or unreachable one empties the DB-derived gauges.
export const SCRAPE_TIMEOUT_MS = 2000;

export function withTimeout<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} timed out after ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

export type GaugeRow = { labels: Record<string, string>; value: number };

/**
 * Gauges computed at scrape time from one read: prom-client collects metrics concurrently, so each gauge's collect()
 * awaits the same in-flight read (one query per scrape). A failed read leaves the gauges empty and sets
 * pix_scrape_up{collector} to 0, so the rest of the scrape still answers and stale values are never served.
 */
export function scrapeGauges<K extends string>(
  registry: Registry,
  collector: string,
  gauges: Record<K, { name: string; help: string; labelNames: string[] }>,
  read: () => Promise<Record<K, GaugeRow[]>>,
  logger: Logger,
): void {
  const up = upGauge(registry);
  let inflight: Promise<Record<K, GaugeRow[]> | null> | null = null;
  const shared = () =>
    (inflight ??= withTimeout(read(), SCRAPE_TIMEOUT_MS, collector)
      .then(
        (rows) => (up.values.set(collector, 1), rows),
        (err: unknown) => {
          logger.warn({ err, collector }, 'metrics collection failed');
          up.values.set(collector, 0);
          return null;
        },
      )
      .finally(() => setImmediate(() => (inflight = null))));
  up.reads.push(shared);
  for (const [key, def] of Object.entries(gauges) as [K, (typeof gauges)[K]][]) {
    new Gauge({
      ...def,
      registers: [registry],
      async collect() {
        const rows = await shared();
        this.reset();
        for (const row of rows?.[key] ?? []) this.set(row.labels, row.value);
      },
    });
  }
}

type Up = { values: Map<string, number>; reads: (() => Promise<unknown>)[] };
const ups = new WeakMap<Registry, Up>();

// pix_scrape_up of a registry: its collect() joins every collector's read of the same scrape (collection is concurrent).
function upGauge(registry: Registry): Up {
  let up = ups.get(registry);
  if (up) return up;
  const created: Up = { values: new Map(), reads: [] };
  new Gauge({
    name: 'pix_scrape_up',
    help: 'Whether the scrape-time database read of each collector succeeded (1) or failed (0)',
    labelNames: ['collector'],
    registers: [registry],
    async collect() {
      await Promise.all(created.reads.map((read) => read()));
      for (const [collector, value] of created.values) this.set({ collector }, value);
    },
  });
  ups.set(registry, (up = created));
  return up;
}

const TEMPLATE = Symbol('route template');
const ROUTE = Symbol('route');
const instrumented = new WeakSet<object>();

/**
 * The router assigns req.route when a route matches, while req.baseUrl is still that router's mount path (an error
 * leaving the router restores baseUrl but keeps req.route): the template is taken then, by an accessor on the app's
 * request prototype (no per-request cost but the assignment). Mount paths are literal and matched case-insensitively,
 * hence lowercased.
 */
function recordTemplates(proto: object): void {
  if (instrumented.has(proto)) return;
  instrumented.add(proto);
  Object.defineProperty(proto, 'route', {
    configurable: true,
    get(this: Record<symbol, unknown>) {
      return this[ROUTE];
    },
    set(this: Record<symbol, unknown> & { baseUrl: string }, route: { path: string }) {
      this[ROUTE] = route;
      this[TEMPLATE] = this.baseUrl.toLowerCase() + (route.path === '/' && this.baseUrl ? '' : String(route.path));
    },
  });
}

/**
 * One histogram observe per request, when the response closes. The route label is the matched route's template, never
 * the raw URL: requests no route matched share one label, so a scanner cannot grow the series.
 */
export function httpMetrics(registry: Registry): RequestHandler {
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP requests by method, route template and status: latency histogram (its _count is the request counter)',
    labelNames: ['method', 'route', 'status_code'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  return (req, res, next) => {
    const start = process.hrtime.bigint();
    recordTemplates(Object.getPrototypeOf(req) as object);
    res.once('close', () => {
      const route = (req as unknown as Record<symbol, string | undefined>)[TEMPLATE] ?? 'unmatched';
      const seconds = Number(process.hrtime.bigint() - start) / 1e9;
      duration.observe({ method: req.method, route, status_code: res.statusCode }, seconds);
    });
    next();
  };
}

const digest = (s: string) => createHash('sha256').update(s).digest();

// `Authorization: Bearer <token>` when a token is configured (read as leniently as the API's credentials); compared in
// constant time. Without one (development and test only: config.ts requires it elsewhere) the route is open.
function authorized(header: string | undefined, token: string | null): boolean {
  if (!token) return true;
  const given = /^bearer[ \t]+(\S+)$/i.exec(header?.trim() ?? '')?.[1];
  return given !== undefined && timingSafeEqual(digest(given), digest(token));
}

async function answer(registry: Registry, token: string | null, req: IncomingMessage, res: ServerResponse) {
  if (!authorized(req.headers.authorization, token)) {
    res.writeHead(401, { 'content-type': 'application/json', 'www-authenticate': 'Bearer' });
    res.end(JSON.stringify(errorBody('unauthenticated', 'Token de métricas ausente ou inválido')));
    return;
  }
  const body = await registry.metrics();
  res.writeHead(200, { 'content-type': registry.contentType });
  res.end(body);
}

// GET /metrics on the API: the registry in Prometheus text format, behind METRICS_TOKEN when set.
export function metricsHandler(registry: Registry, token: string | null): RequestHandler {
  return (req, res) => answer(registry, token, req, res);
}

/**
 * The metrics of a process without an HTTP API (worker, webhook daemon): a registry served on METRICS_PORT until its
 * pg-boss stops; null without METRICS_PORT, so nothing is collected that nobody could scrape.
 */
export async function processMetrics(
  o: { metricsPort: number | null; metricsToken: string | null },
  boss: PgBoss,
  logger: Logger,
): Promise<Registry | null> {
  if (!o.metricsPort) return null;
  const registry = createRegistry();
  const server = await serveMetrics(registry, { port: o.metricsPort, token: o.metricsToken, logger });
  boss.once('stopped', () => void server.close());
  return registry;
}

// GET /metrics and GET /healthz (and its old name /health) on their own port.
async function serveMetrics(
  registry: Registry,
  o: { port: number; token: string | null; logger: Logger },
): Promise<{ close: () => Promise<void> }> {
  const server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (req.method === 'GET' && path === '/metrics') {
      answer(registry, o.token, req, res).catch((err: unknown) => {
        o.logger.error({ err }, 'metrics scrape failed');
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify(errorBody('internal_error', 'Erro interno')));
      });
    } else if (req.method === 'GET' && (path === '/healthz' || path === '/health')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ status: 'ok' }));
    } else {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify(errorBody('route_not_found', 'Rota não encontrada')));
    }
  });
  server.listen(o.port);
  await once(server, 'listening');
  o.logger.info({ port: o.port }, 'metrics listening');
  return {
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export type { Registry };
