// npm run chaos: the service as separate processes on one PostgreSQL, under a steady load of charges, payments (some
// racing the expiry sweep), refunds, withdrawals, Pix Automático (QR mandates, recurring charges, attempts PAID, some
// twice at once, or REJECTED, some racing a payment, partial refunds) and bad input, while the worker and the webhook daemon are killed with
// SIGKILL four times each and PostgreSQL is crashed once; webhook receivers answer 500, hang past the timeout or drop
// the connection; two merchants' clients of the event stream (SSE) connect during the load, are cut off four times
// and resume with Last-Event-ID; two merchants also have a webhook whose endpoint always fails, which must end
// disabled (disabledReason FAILING). Then it waits for the system to settle and checks that no money and no event was lost
// (and that each stream client saw every event once, in commit order), and reports the recovery time per queue. Exit code 1 when a check fails. Only 127.0.0.1 is ever the target.
// `npm run chaos -- --pgbouncer`: the three processes reach PostgreSQL only through a PgBouncer in transaction pooling
// mode (DATABASE_POOL_MODE=transaction, no direct URL: the worker and the daemon poll their queues).
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { EVENT_TYPES } from '../src/webhooks/catalog.ts';
import { serverTempDir } from '../src/dev-db/embedded-pg-files.ts';
import { setupDatabase } from '../src/database.ts';
import { createLogger } from '../src/platform/logger.ts';
import { freePort, root } from '../bench/lib/stack.ts';
import { onboardMerchant } from '../bench/lib/merchant.ts';
import { percentile, round } from '../bench/lib/report.ts';
import { query, startDatabase, supervise, waitForApi, type Supervised } from './lib/cluster.ts';
import { startDead, startFlaky, startRecorder } from './lib/receivers.ts';
import { createLoad, type Merchant } from './lib/load.ts';
import { createRecoveryMonitor } from './lib/recovery.ts';
import { runChecks, settled, type Check, type Window } from './lib/checks.ts';
import { startStreamClient, type StreamClient } from './lib/stream.ts';
import { startPgBouncer, type PgBouncer } from '../test/support/pgbouncer.ts';

const knob = (name: string, fallback: number) => Number(process.env[name] || fallback);
const SECONDS = knob('CHAOS_SECONDS', 90);
const DEADLINE_SECONDS = knob('CHAOS_DEADLINE_SECONDS', 180);
const RATE = knob('CHAOS_RATE', 20);
const MERCHANTS = knob('CHAOS_MERCHANTS', 6);
const GRACE_MS = knob('CHAOS_OUTAGE_GRACE_SECONDS', 5) * 1000;
const MAX_EVENT_DELAY_MS = knob('CHAOS_MAX_EVENT_DELAY_SECONDS', 45) * 1000;
const WEBHOOK_TIMEOUT_MS = 3000;
const PGBOUNCER = process.argv.includes('--pgbouncer');

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const say = (msg: string) => console.log(`[chaos ${new Date().toISOString().slice(11, 19)}] ${msg}`);

const results = join(root, 'chaos/results');
mkdirSync(results, { recursive: true });
const dataDir = serverTempDir('pix-chaos-pg-');
const db = await startDatabase(join(dataDir, 'pg'), await freePort());
const procs: Supervised[] = [];
let bouncer: PgBouncer | undefined;
let exitCode = 1;
try {
  await setupDatabase(db.url, createLogger('warn', 'chaos'));
  // the observer (checks, recovery monitor, onboarding) keeps the direct URL; the service gets the pooler's
  if (PGBOUNCER) bouncer = await startPgBouncer(db.url, { poolSize: 20 });
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const env = {
    NODE_ENV: 'development',
    LOG_LEVEL: 'warn',
    DATABASE_URL: bouncer?.url ?? db.url,
    ...(bouncer ? { DATABASE_POOL_MODE: 'transaction' } : {}),
    PORT: String(port),
    PUBLIC_BASE_URL: base,
    RATE_LIMIT_ENABLED: 'false',
    WEBHOOK_TIMEOUT_MS: String(WEBHOOK_TIMEOUT_MS),
    // the whole retry schedule within ~20 s, so the flaky receiver's deliveries end, and the dead endpoint's fail for
    // good, within the run; automatic disabling after 10 final failures over 10 h x 0.0002 = 7.2 s
    WEBHOOK_RETRY_SCALE: '0.0002',
    WEBHOOK_DISABLE_AFTER_HOURS: '10',
    JWT_SECRET: 'chaos-secret-chaos-secret-chaos-secret-42',
  };
  for (const name of ['api', 'worker', 'webhooks'] as const) procs.push(await supervise(name, env, results));
  const [, worker, daemon] = procs;
  await waitForApi(base);

  const recorder = await startRecorder();
  const flaky = await startFlaky(WEBHOOK_TIMEOUT_MS + 2000);
  const dead = await startDead();
  const merchants: Merchant[] = [];
  const deadHooks: { apiKey: string; id: string }[] = [];
  for (let index = 0; index < MERCHANTS; index++) {
    const m = await onboardMerchant(base, db.url);
    for (const url of [recorder.url, flaky.url])
      await m.call('POST', '/v1/webhooks/merchant', { url, events: EVENT_TYPES });
    if (index >= MERCHANTS - 2) {
      const created = (await m.call('POST', '/v1/webhooks/merchant', { url: dead.url })) as {
        webhook: { id: string };
      };
      deadHooks.push({ apiKey: m.apiKey, id: created.webhook.id });
    }
    merchants.push({ index, apiKey: m.apiKey, merchantId: m.merchantId });
  }
  const since = new Date(); // every event from now on has both webhooks to go to
  say(
    `stack up on ${base}${bouncer ? ' behind PgBouncer (transaction pooling)' : ''}: ` +
      `${MERCHANTS} merchants, ${RATE} operations/s for ${SECONDS} s`,
  );

  const monitor = createRecoveryMonitor(db.url);
  monitor.start();
  const outages: Window[] = [];
  const load = createLoad(base, merchants);
  const started = Date.now();
  const at = (fraction: number) => sleep(Math.max(0, started + fraction * SECONDS * 1000 - Date.now()));
  const killAt = (fraction: number, p: Supervised) =>
    at(fraction).then(async () => {
      await monitor.kill(p.name, p.kill);
      say(`killed the ${p.name} (SIGKILL); its supervisor restarts it`);
    });
  // two merchants' event stream clients: they connect during the load, are cut off (by themselves, and by the
  // PostgreSQL crash), and resume with Last-Event-ID
  const streams: StreamClient[] = [];
  const chaos = Promise.all([
    at(0.1).then(() => {
      for (const m of merchants.slice(0, 2))
        streams.push(startStreamClient(base, m.apiKey, m.merchantId, `stream client ${m.index + 1}`));
      say(`${streams.length} event stream clients connected`);
    }),
    ...[0.3, 0.45, 0.65, 0.85].map((f) =>
      at(f).then(() => {
        for (const c of streams) c.disconnect();
        say('event stream clients disconnected: they resume with Last-Event-ID');
      }),
    ),
    ...[0.08, 0.26, 0.72, 0.88].map((f) => killAt(f, worker)),
    ...[0.17, 0.35, 0.8, 0.96].map((f) => killAt(f, daemon)),
    at(0.55).then(async () => {
      const from = Date.now();
      await db.crash();
      say('crashed PostgreSQL (SIGKILL of the postmaster and every backend)');
      await sleep(3000);
      await db.restart();
      await waitForApi(base);
      outages.push({ from, to: Date.now() + GRACE_MS });
      say(`PostgreSQL back after ${((Date.now() - from) / 1000).toFixed(1)} s (crash recovery), the API answers`);
    }),
  ]);
  await load.run(RATE, SECONDS);
  await chaos;
  say(`load done: ${load.state.answers.length} requests; waiting for ${load.state.pending.size} scheduled payments`);
  await Promise.all(load.state.pending);

  const drainFrom = Date.now();
  const deadline = drainFrom + DEADLINE_SECONDS * 1000;
  const merchantIds = merchants.map((m) => m.merchantId);
  let s = await settled(db.url, load.state, recorder, merchantIds, since);
  while (!s.done && Date.now() < deadline) {
    await sleep(1000);
    s = await settled(db.url, load.state, recorder, merchantIds, since);
  }
  const drainMs = Date.now() - drainFrom;
  say(
    s.done
      ? `settled ${(drainMs / 1000).toFixed(1)} s after the load`
      : `NOT settled by the deadline: ${JSON.stringify({ ...s, undelivered: s.undelivered.length })}`,
  );
  // what became of the events the well-behaved receiver never got
  const stuck = await query(
    db.url,
    `select d.event_id, d.event_type, d.status, d.attempts, d.status_code, d.next_attempt_at, d.updated_at
     from webhook_deliveries d join webhooks w on w.id = d.webhook_id
     where d.event_id = any($1::uuid[]) and w.url = $2`,
    [s.undelivered, recorder.url],
  );
  await monitor.stop();
  const streamChecks = (await Promise.all(streams.map((c) => c.finish(db.url, 30_000)))).flat();

  const { checks, delays, duplicates } = await runChecks({
    url: db.url,
    state: load.state,
    merchants,
    recorder,
    outages,
    maxEventDelayMs: MAX_EVENT_DELAY_MS,
    since,
  });
  checks.unshift({ check: 'settled within the deadline', value: `${(drainMs / 1000).toFixed(1)} s`, ok: s.done });
  checks.push(...streamChecks, ...(await disabledChecks(base, db.url, deadHooks, dead.requests())));
  for (const p of procs)
    checks.push({ check: `${p.name}: killed / died on its own`, value: `${p.kills} / ${p.unexpectedExits}`, ok: true });

  // recovery per queue: from the kill to the end of each job the dead process held
  const perQueue = new Map<string, number[]>();
  let unrecovered = 0;
  // a kill shortly before the PostgreSQL crash: its recovery includes the outage, reported apart
  const overlaps = (at: number) => outages.some((o) => o.from >= at && o.from - at < 30_000);
  for (const k of monitor.kills.filter((k) => !overlaps(k.at)))
    for (const h of k.held) {
      if (h.endedAfterMs === undefined) unrecovered++;
      else if (h.endedAfterMs > 0) perQueue.set(h.queue, [...(perQueue.get(h.queue) ?? []), h.endedAfterMs]);
    }
  const recovery = [...perQueue].map(([queue, ms]) => ({
    check: `${queue}: jobs held by a killed process, taken over within`,
    value: `${ms.length} jobs, max ${(Math.max(...ms) / 1000).toFixed(1)} s`,
    ok: Math.max(...ms) <= 30_000,
  }));
  const resumed = monitor.kills.filter((k) => !overlaps(k.at)).map((k) => k.resumedAfterMs ?? Infinity);
  const during = monitor.kills.filter((k) => overlaps(k.at)).flatMap((k) => k.held);
  if (during.length)
    checks.push({
      check: `jobs held by a process killed < 30 s before the PostgreSQL crash: taken over / slowest`,
      value: `${during.filter((h) => h.endedAfterMs !== undefined).length}/${during.length} / ${(
        Math.max(...during.map((h) => h.endedAfterMs ?? Infinity)) / 1000
      ).toFixed(1)} s`,
      ok: during.every((h) => h.endedAfterMs !== undefined),
    });
  checks.push(
    ...recovery,
    { check: 'held jobs never ended', value: unrecovered, ok: unrecovered === 0 },
    {
      check: 'queues working again after a kill (max)',
      value: `${(Math.max(...resumed) / 1000).toFixed(1)} s`,
      ok: Math.max(...resumed) <= 30_000,
    },
    {
      check: 'first delivery delay p50 / p99',
      value: `${round(percentile(delays, 50))} / ${round(percentile(delays, 99))} ms`,
      ok: true,
    },
    {
      check: 'flaky receiver: ok / 500 / hang / drop',
      value: Object.values(flaky.counts).join(' / '),
      ok: true,
    },
  );
  const byOp: Record<string, Record<string, number>> = {};
  for (const a of load.state.answers) {
    const op = (byOp[a.op] ??= {});
    op[a.status] = (op[a.status] ?? 0) + 1;
  }
  for (const [op, statuses] of Object.entries(byOp))
    checks.push({
      check: `answers to ${op}`,
      value: Object.entries(statuses)
        .map(([st, n]) => `${st}: ${n}`)
        .join(', '),
      ok: true,
    });
  printTable(checks);
  const failed = checks.filter((c) => !c.ok);
  writeFileSync(
    join(results, PGBOUNCER ? 'latest-pgbouncer.json' : 'latest.json'),
    JSON.stringify(
      {
        at: new Date().toISOString(),
        knobs: { SECONDS, DEADLINE_SECONDS, RATE, MERCHANTS, PGBOUNCER },
        checks,
        answers: byOp,
        kills: monitor.kills,
        outages,
        duplicates,
        undelivered: stuck,
      },
      null,
      2,
    ),
  );
  say(failed.length ? `FAILED: ${failed.map((c) => c.check).join('; ')}` : 'every check passed');
  exitCode = failed.length ? 1 : 0;
  await recorder.close();
  await flaky.close();
  await dead.close();
} catch (err) {
  console.error(err);
} finally {
  for (const p of procs.reverse()) await p.stop().catch(() => {});
  await bouncer?.stop().catch(() => {});
  await db.stop().catch(() => {});
  rmSync(dataDir, { recursive: true, force: true });
}
process.exit(exitCode);

function printTable(rows: Check[]) {
  const w = Math.max(...rows.map((r) => r.check.length));
  const v = Math.max(...rows.map((r) => String(r.value).length));
  console.log(
    `\n| ${'check'.padEnd(w)} | ${'value'.padEnd(v)} | ok  |\n|${'-'.repeat(w + 2)}|${'-'.repeat(v + 2)}|-----|`,
  );
  for (const r of rows)
    console.log(`| ${r.check.padEnd(w)} | ${String(r.value).padEnd(v)} | ${r.ok ? 'yes' : 'NO '} |`);
  console.log();
}

// The dead endpoint's webhooks, as their merchants see them: INACTIVE, FAILING; and nothing sent to them after that.
async function disabledChecks(base: string, url: string, hooks: { apiKey: string; id: string }[], requests: number) {
  const seen = await Promise.all(
    hooks.map(async ({ apiKey, id }) => {
      const res = await fetch(`${base}/v1/webhooks/merchant`, { headers: { authorization: `Bearer ${apiKey}` } });
      const { webhooks } = (await res.json()) as { webhooks: { id: string; status: string; disabledReason: string }[] };
      return webhooks.find((w) => w.id === id);
    }),
  );
  const disabled = seen.filter((w) => w?.status === 'INACTIVE' && w.disabledReason === 'FAILING').length;
  // A settlement that read the webhook ACTIVE while the disabling was being committed creates a delivery dated (its
  // transaction's start) after disabled_at: the daemon then cancels it without a request (deliver.ts). Only a delivery
  // created after the disabling and attempted, or still waiting, is a failure.
  const [{ late, canceled }] = await query<{ late: number; canceled: number }>(
    url,
    `select count(*) filter (where not (d.status = 'CANCELED' and d.attempts = 0))::int as late,
            count(*) filter (where d.status = 'CANCELED' and d.attempts = 0)::int as canceled
       from webhook_deliveries d join webhooks w on w.id = d.webhook_id
      where w.id = any($1::uuid[]) and d.created_at > w.disabled_at`,
    [hooks.map((h) => h.id)],
  );
  return [
    {
      check: 'always-failing endpoints disabled (FAILING) / their requests',
      value: `${disabled}/${hooks.length} / ${requests}`,
      ok: disabled === hooks.length,
    },
    {
      check: 'deliveries created for them after their disabling, sent or waiting (canceled unsent)',
      value: `${late} (${canceled})`,
      ok: late === 0,
    },
  ] satisfies Check[];
}
