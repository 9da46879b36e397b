// `node bench/breakdown.ts`: where a payment's time goes (issue 24's first step). Runs scenario (b)'s pipeline
// (sandbox pay -> settlement -> event -> webhook delivery) at BENCH_RATE payments/s for BENCH_SECONDS, each process
// under --cpu-prof and connected as its own PostgreSQL role, on an embedded server with pg_stat_statements, then
// reports per payment: statements (= round trips) by process, transactions, WAL records/bytes and WAL fsyncs, the
// costliest statements, and where each process spends its CPU. Counts do not depend on how loaded the machine is
// (they are what the next optimisation must lower); times do, so read them as shares, not as latencies.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort, startDatabase, startProc, ask, root, type Proc } from './lib/stack.ts';
import { onboardMerchant } from './lib/merchant.ts';

const RATE = Number(process.env.BENCH_RATE || 200);
const SECONDS = Number(process.env.BENCH_SECONDS || 10);
const IDLE_SECONDS = Number(process.env.BENCH_IDLE_SECONDS || 10);
const APPS = ['api', 'worker', 'webhooks'] as const;

if (process.env.DATABASE_URL) {
  console.error('bench/breakdown.ts needs the embedded server (pg_stat_statements preloaded): unset DATABASE_URL');
  process.exit(2);
}
const db = await startDatabase(`pix_breakdown_${process.pid}`, {
  shared_preload_libraries: 'pg_stat_statements',
  'pg_stat_statements.track': 'all',
  'pg_stat_statements.track_planning': 'on',
});
const admin = new pg.Client({ connectionString: db.url });
await admin.connect();
await admin.query('create extension if not exists pg_stat_statements');
// one role per process, so that pg_stat_statements (keyed by role) says who sent what
const urlAs = (role: string) => {
  const u = new URL(db.url);
  u.username = role;
  u.password = 'bench';
  return u.toString();
};
for (const app of APPS) await admin.query(`create role bench_${app} superuser login password 'bench'`);

// BENCH_PROFILES_DIR keeps the .cpuprofile files there (for Chrome DevTools or a closer look); otherwise a temporary dir
const profiles = process.env.BENCH_PROFILES_DIR || mkdtempSync(join(tmpdir(), 'pix-breakdown-'));
const procs: Proc[] = [];
const port = await freePort();
const receiverPort = await freePort();
const receiver = await startProc('receiver', 'bench/receiver-server.ts', {
  PORT: String(receiverPort),
  RECORD_IDS: 'true',
});
procs.push(receiver);
for (const app of APPS)
  procs.push(
    await startProc(app, `apps/${app}/main.ts`, { DATABASE_URL: urlAs(`bench_${app}`), PORT: String(port) }, [
      '--cpu-prof',
      `--cpu-prof-dir=${join(profiles, app)}`,
      '--cpu-prof-interval=500',
    ]),
  );
const base = `http://127.0.0.1:${port}`;
const m = await onboardMerchant(base, db.url);
await m.call('POST', '/v1/webhooks/merchant', {
  url: `http://127.0.0.1:${receiverPort}/hook`,
  events: ['charge.paid'],
});

// warm-up payments (JIT), then the charges to pay, created beforehand (not measured)
const total = RATE * SECONDS;
const warm = Math.min(total, RATE * 2);
const ids: string[] = [];
for (let i = 0; i < total + warm; i += 50) {
  const batch = await Promise.all(
    Array.from({ length: Math.min(50, total + warm - i) }, () =>
      m.call('POST', '/v1/charges', { amount: 1000, description: 'perfil' }),
    ),
  );
  ids.push(...batch.map((b) => b.charge.id as string));
}
await payAll(ids.slice(0, warm), warm);

type Snapshot = {
  calls: Map<string, number>;
  xact: number;
  wal: { records: number; bytes: number; fsyncs: number };
};
async function snapshot(): Promise<Snapshot> {
  const calls = new Map<string, number>();
  const { rows } = await admin.query<{ role: string; calls: string }>(
    `select r.rolname as role, sum(s.calls)::bigint as calls
       from pg_stat_statements s
       join pg_roles r on r.oid = s.userid
      group by r.rolname`,
  );
  for (const r of rows) calls.set(r.role, Number(r.calls));
  const xact = Number(
    (await admin.query(`select xact_commit from pg_stat_database where datname = current_database()`)).rows[0]
      .xact_commit,
  );
  const w = (await admin.query(`select wal_records, wal_bytes from pg_stat_wal`)).rows[0];
  // PostgreSQL 18 counts WAL fsyncs in pg_stat_io; before, pg_stat_wal.wal_sync
  const fsyncs = Number(
    (
      await admin.query(
        `select coalesce(sum(fsyncs), 0) as n
           from pg_stat_io
          where object = 'wal'`,
      )
    ).rows[0].n,
  );
  await admin.query('select pg_stat_clear_snapshot()');
  return { calls, xact, wal: { records: Number(w.wal_records), bytes: Number(w.wal_bytes), fsyncs } };
}
const delta = (a: Snapshot, b: Snapshot, role: string) => (b.calls.get(role) ?? 0) - (a.calls.get(role) ?? 0);

// what the idle service sends anyway (pg-boss polling, maintenance): subtracted below, per second
const idle0 = await snapshot();
const idleStart = performance.now();
await new Promise((r) => setTimeout(r, IDLE_SECONDS * 1000));
const idle1 = await snapshot();
const idleSeconds = (performance.now() - idleStart) / 1000;

await admin.query('select pg_stat_statements_reset()');
const cpu0 = cpuByProcess();
const s0 = await snapshot();
const started = performance.now();
const windowStart = new Date();
const windowUs = [monotonicUs(), 0]; // the profiles' clock (CLOCK_MONOTONIC, µs): only this window's samples count
await payAll(ids.slice(warm), total + warm);
windowUs[1] = monotonicUs();
const seconds = (performance.now() - started) / 1000;
const cpu1 = cpuByProcess();
const s1 = await snapshot();

const out: string[] = [];
out.push(
  `## Per payment (sandbox pay -> settled -> charge.paid delivered), ${total} payments at ${RATE}/s in ${seconds.toFixed(1)} s\n`,
);
out.push('| measure | per payment | of which idle polling |\n|---|---|---|');
for (const app of APPS) {
  const role = `bench_${app}`;
  const idlePerPay = (delta(idle0, idle1, role) / idleSeconds) * (seconds / total);
  out.push(`| statements sent by ${app} | ${(delta(s0, s1, role) / total).toFixed(2)} | ${idlePerPay.toFixed(2)} |`);
}
const idleXact = ((idle1.xact - idle0.xact) / idleSeconds) * (seconds / total);
out.push(`| transactions committed (all) | ${((s1.xact - s0.xact) / total).toFixed(2)} | ${idleXact.toFixed(2)} |`);
out.push(`| WAL records | ${((s1.wal.records - s0.wal.records) / total).toFixed(1)} | |`);
out.push(`| WAL bytes | ${Math.round((s1.wal.bytes - s0.wal.bytes) / total)} | |`);
out.push(`| WAL fsyncs | ${((s1.wal.fsyncs - s0.wal.fsyncs) / total).toFixed(2)} | |`);

// CPU time per payment by process (utime + stime from /proc, 10 ms ticks): what a 2-core machine has to share
out.push('\n## CPU per payment (ms, user + system, measured window)\n');
out.push('| process | CPU ms per payment | cores busy |\n|---|---|---|');
let cpuAll = 0;
for (const [name, ms] of cpu1) {
  const d = ms - (cpu0.get(name) ?? 0);
  cpuAll += d;
  out.push(`| ${name} | ${(d / total).toFixed(2)} | ${(d / 1000 / seconds).toFixed(2)} |`);
}
out.push(`| all | ${(cpuAll / total).toFixed(2)} | ${(cpuAll / 1000 / seconds).toFixed(2)} |`);

const top = await admin.query<{ role: string; calls: string; ms: string; query: string }>(
  `select r.rolname as role, s.calls, round(s.total_exec_time::numeric, 1) as ms,
          regexp_replace(left(s.query, 90), '\\s+', ' ', 'g') as query
     from pg_stat_statements s
     join pg_roles r on r.oid = s.userid
    where r.rolname like 'bench_%'
    order by s.total_exec_time desc
    limit 15`,
);
out.push('\n## Costliest statements (execution time in PostgreSQL)\n');
out.push('| process | calls per payment | total ms | statement |\n|---|---|---|---|');
for (const r of top.rows)
  out.push(
    `| ${r.role.slice(6)} | ${(Number(r.calls) / total).toFixed(2)} | ${r.ms} | \`${r.query.replaceAll('|', '\\|')}\` |`,
  );

// the round trips themselves: every statement sent at least once per ten payments, by process
const frequent = await admin.query<{ role: string; calls: string; exec: string; plan: string; query: string }>(
  `select r.rolname as role, s.calls, round(s.total_exec_time::numeric, 1) as exec,
          round(s.total_plan_time::numeric, 1) as plan, regexp_replace(left(s.query, 90), '\\s+', ' ', 'g') as query
     from pg_stat_statements s
     join pg_roles r on r.oid = s.userid
    where r.rolname like 'bench_%' and s.calls >= $1
    order by r.rolname, s.calls desc`,
  [total / 10],
);
out.push(
  '\n## Statements by process (sent at least once per ten payments; planning and execution time in PostgreSQL)\n',
);
out.push('| process | calls per payment | plan ms | exec ms | statement |\n|---|---|---|---|---|');
for (const r of frequent.rows)
  out.push(
    `| ${r.role.slice(6)} | ${(Number(r.calls) / total).toFixed(2)} | ${r.plan} | ${r.exec} | \`${r.query.replaceAll('|', '\\|')}\` |`,
  );
const sums = await admin.query<{ exec: string; plan: string }>(
  `select round(sum(total_exec_time)::numeric, 1) as exec, round(sum(total_plan_time)::numeric, 1) as plan
     from pg_stat_statements`,
);
out.push(
  `\nAll statements: planning ${(Number(sums.rows[0].plan) / total).toFixed(2)} ms and execution ${(Number(sums.rows[0].exec) / total).toFixed(2)} ms per payment (wall time inside PostgreSQL: inflated when the CPUs are saturated).`,
);

// where a payment waits: each queue's jobs of the window, from their insert (its transaction's start) to a worker or
// daemon taking them, and from that to their completion (pg-boss' own timestamps, PostgreSQL's clock)
const stages = await admin.query<{
  name: string;
  jobs: string;
  wait50: number;
  wait99: number;
  run50: number;
  run99: number;
}>(
  `select name, count(*) as jobs,
          round(percentile_cont(0.5) within group (order by extract(epoch from started_on - created_on) * 1000)::numeric, 1)::float as wait50,
          round(percentile_cont(0.99) within group (order by extract(epoch from started_on - created_on) * 1000)::numeric, 1)::float as wait99,
          round(percentile_cont(0.5) within group (order by extract(epoch from completed_on - started_on) * 1000)::numeric, 1)::float as run50,
          round(percentile_cont(0.99) within group (order by extract(epoch from completed_on - started_on) * 1000)::numeric, 1)::float as run99
     from pgboss.job
    where name in ('acquirer.notification', 'webhook.deliver') and created_on >= $1 and completed_on is not null
    group by name
    order by name`,
  [windowStart],
);
out.push("\n## Where a payment waits (ms, p50 / p99 over the window's jobs)\n");
out.push('| queue | jobs | inserted -> taken | taken -> completed |\n|---|---|---|---|');
for (const r of stages.rows)
  out.push(`| ${r.name} | ${r.jobs} | ${r.wait50} / ${r.wait99} | ${r.run50} / ${r.run99} |`);

for (const p of procs) await p.stop();
await admin.end();
await db.stop();

out.push('\n## Where each process spends its CPU (self time, share of busy samples, measured window)\n');
for (const app of APPS) {
  const file = readdirSync(join(profiles, app)).find((f) => f.endsWith('.cpuprofile'));
  if (!file) continue;
  const { byPackage, byFunction, busyShare } = summarise(JSON.parse(readFileSync(join(profiles, app, file), 'utf8')));
  out.push(`### ${app} (busy ${(busyShare * 100).toFixed(0)}% of its samples)\n`);
  out.push('| where | share |\n|---|---|');
  for (const [k, v] of byPackage.slice(0, 10)) out.push(`| ${k} | ${(v * 100).toFixed(1)}% |`);
  out.push('\n| function | share |\n|---|---|');
  for (const [k, v] of byFunction.slice(0, 10)) out.push(`| \`${k}\` | ${(v * 100).toFixed(1)}% |`);
  out.push('');
}
if (!process.env.BENCH_PROFILES_DIR) rmSync(profiles, { recursive: true, force: true });
else console.log(`profiles kept in ${profiles}; measured window ${windowUs[0]}..${windowUs[1]} µs (CLOCK_MONOTONIC)`);
console.log(out.join('\n'));

async function payAll(list: string[], expected: number) {
  const t0 = performance.now();
  const pays: Promise<unknown>[] = [];
  for (let i = 0; i < list.length; i++) {
    const wait = t0 + (i * 1000) / RATE - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    pays.push(m.call('POST', `/v1/sandbox/charges/${list[i]}/pay`));
  }
  await Promise.all(pays);
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const r = await ask<{ arrivals: unknown[] }>(receiver, 'report');
    if (r.arrivals.length >= expected) return;
    await new Promise((res) => setTimeout(res, 100));
  }
  throw new Error(`webhooks missing after 60 s (expected ${expected})`);
}

// CPU ms so far of each process of the pipeline, PostgreSQL's (every process named postgres) summed, and this one's
// (the load generator)
function cpuByProcess(): Map<string, number> {
  const tick = 10; // ms: USER_HZ is 100 on Linux
  const msOf = (pid: number) => {
    try {
      const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
      return (Number(f[11]) + Number(f[12])) * tick;
    } catch {
      return 0; // exited since
    }
  };
  const cpu = new Map<string, number>();
  for (const p of procs) cpu.set(p.name, msOf(p.child.pid!));
  let pgMs = 0;
  for (const d of readdirSync('/proc'))
    if (/^\d+$/.test(d))
      try {
        if (readFileSync(`/proc/${d}/comm`, 'utf8').trim() === 'postgres') pgMs += msOf(Number(d));
      } catch {
        // gone
      }
  cpu.set('postgresql', pgMs);
  const own = process.cpuUsage();
  cpu.set('load generator', (own.user + own.system) / 1000);
  return cpu;
}

function monotonicUs(): number {
  return Number(process.hrtime.bigint() / 1000n);
}

type Node = { id: number; callFrame: { functionName: string; url: string; lineNumber: number } };
type Profile = { nodes: Node[]; startTime: number; samples: number[]; timeDeltas: number[] };
function summarise(profile: Profile) {
  const special = new Set(['(idle)', '(program)', '(root)']);
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const hits = new Map<number, number>();
  let at = profile.startTime;
  profile.samples.forEach((id, i) => {
    at += profile.timeDeltas[i];
    if (at >= windowUs[0] && at <= windowUs[1]) hits.set(id, (hits.get(id) ?? 0) + 1);
  });
  const packages = new Map<string, number>();
  const functions = new Map<string, number>();
  let busy = 0,
    all = 0;
  for (const [id, n] of hits) {
    const { callFrame: f } = nodes.get(id)!;
    all += n;
    if (special.has(f.functionName)) continue;
    busy += n;
    const where = place(f.url, f.functionName);
    packages.set(where, (packages.get(where) ?? 0) + n);
    const fn = `${f.functionName || '(anonymous)'} ${where}:${f.lineNumber + 1}`;
    functions.set(fn, (functions.get(fn) ?? 0) + n);
  }
  const sorted = (m: Map<string, number>) => [...m].sort((a, b) => b[1] - a[1]).map(([k, v]) => [k, v / busy] as const);
  return { byPackage: sorted(packages), byFunction: sorted(functions), busyShare: busy / all };
}
function place(url: string, fn: string): string {
  if (!url) return fn === '(garbage collector)' ? 'GC' : 'native';
  if (url.startsWith('node:')) return 'node core';
  const nm = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (nm) return nm[1];
  const own = url.replace(`file://${root}`, '');
  return /^(src\/[^/]+|apps\/[^/]+|bench)/.exec(own)?.[1] ?? own;
}
