// `npm start` as a process manager, `docker stop` or `kill <pid>` would treat it: a signal to the npm process only.
// Whatever the signal, every process it started (supervisor, API, worker, daemon, database host, PostgreSQL and its
// backends) has to be gone a few seconds later, and the ports free.
import test, { type ExecutionContext } from 'ava';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serverTempDir } from '../src/dev-db/embedded-pg-files.ts';
import {
  alive,
  freePort,
  freePortPair,
  portFree,
  recordDescendants,
  waitUntilGone,
  type Proc,
} from './support/procs.ts';
import { client } from './support/client.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const dataDir = serverTempDir('pix-start-test-'); // one database for every start of this file: initdb once
test.after.always(() => rmSync(dataDir, { recursive: true, force: true }));

async function npmStart(t: ExecutionContext) {
  const [port, pgPort, metricsPort] = [await freePort(), await freePort(), await freePortPair()];
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    LOG_LEVEL: 'info',
    PORT: String(port),
    EMBEDDED_PG_PORT: String(pgPort),
    EMBEDDED_PG_DIR: join(dataDir, 'pg'),
    METRICS_PORT: String(metricsPort), // the worker's; the daemon takes the next one
  };
  delete env.DATABASE_URL;
  delete env.NODE_ENV; // the embedded database is development by definition: npm start needs nothing set
  const npm = spawn('npm', ['start'], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: string[] = [];
  npm.stdout.on('data', (d: Buffer) => lines.push(...String(d).split('\n').filter(Boolean)));
  npm.stderr.on('data', (d: Buffer) => lines.push(...String(d).split('\n').filter(Boolean)));
  const tree = recordDescendants(npm.pid!);
  const deadline = Date.now() + 45_000;
  while (!lines.some((l) => l.includes('service ready')) && npm.exitCode === null && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 100));
  t.teardown(() =>
    tree
      .stop()
      .filter(alive)
      .forEach((p) => process.kill(p.pid, 'SIGKILL')),
  ); // whatever a failed test left
  if (!lines.some((l) => l.includes('service ready')))
    throw new Error(`npm start never got ready:\n${lines.join('\n')}`);
  const res = await client(`http://127.0.0.1:${port}`).get('/health');
  t.is(res.status, 200);
  t.true(lines.some((l) => l.includes('NODE_ENV unset with the embedded database: running as development')));
  for (const [at, metric] of [
    [metricsPort, 'pix_settlement_lag_seconds_count 0'],
    [metricsPort + 1, 'pix_webhook_deliveries_total{outcome="succeeded"} 0'],
  ] as const) {
    const metrics = await fetch(`http://127.0.0.1:${at}/metrics`);
    t.is(metrics.status, 200);
    t.true((await metrics.text()).includes(metric), metric);
  }
  tree.sample();
  const procs = tree.stop();
  // what must have been recorded: the supervisor, the three apps, the database host and the PostgreSQL server
  for (const part of [
    'scripts/start.ts',
    'apps/api/main.ts',
    'apps/worker/main.ts',
    'apps/webhooks/main.ts',
    'scripts/embedded-pg.ts',
    'bin/postgres -D',
  ]) {
    t.true(
      procs.some((p) => p.cmd.includes(part)),
      `no process running ${part} under npm: ${procs.map((p) => p.cmd).join('\n')}`,
    );
  }
  return { npm, lines, procs, ports: [port, pgPort, metricsPort, metricsPort + 1] };
}

async function assertAllGone(t: ExecutionContext, procs: Proc[], ports: number[], lines: string[]) {
  const left = await waitUntilGone(procs, 20_000);
  t.deepEqual(
    left.map((p) => `${p.pid} ${p.cmd}`),
    [],
    lines.join('\n'),
  );
  for (const port of ports) t.true(await portFree(port), `port ${port} still taken`);
}

// The three processes stopped before the database did.
function assertOrder(t: ExecutionContext, lines: string[]) {
  const at = (re: RegExp) => lines.findIndex((l) => re.test(l));
  const database = at(/"name":"postgres".*"msg":"embedded PostgreSQL stopped"/);
  t.true(database > 0, lines.join('\n'));
  for (const app of ['api', 'worker', 'webhooks']) {
    const stopped = at(new RegExp(`"name":"${app}".*"msg":"stopped"`));
    t.true(stopped > 0 && stopped < database, `${app} did not stop before the database:\n${lines.join('\n')}`);
  }
}

// `npm run -s ops` as an operator types it in another terminal: no DATABASE_URL, no EMBEDDED_PG_PORT, no NODE_ENV.
async function opsCli(extra: NodeJS.ProcessEnv, ...argv: string[]) {
  const env: NodeJS.ProcessEnv = { ...process.env, EMBEDDED_PG_DIR: join(dataDir, 'pg'), ...extra };
  delete env.DATABASE_URL;
  delete env.NODE_ENV;
  if (!('EMBEDDED_PG_PORT' in extra)) delete env.EMBEDDED_PG_PORT;
  const child = spawn(process.execPath, ['scripts/ops.ts', ...argv], {
    cwd: root,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let [stdout, stderr] = ['', ''];
  child.stdout.on('data', (d: Buffer) => (stdout += d));
  child.stderr.on('data', (d: Buffer) => (stderr += d));
  const [code] = (await once(child, 'exit')) as [number];
  return { code, stdout, stderr };
}

test.serial('SIGTERM to the npm start process stops every process in order, exit code 0', async (t) => {
  const { npm, lines, procs, ports } = await npmStart(t);
  const pgPort = ports[1];
  // the operator's commands reach npm start's database, found from its data directory, not a default port
  const verify = await opsCli({}, 'ledger:verify');
  t.is(verify.code, 0, verify.stderr);
  t.true(JSON.parse(verify.stdout).ok);
  t.regex(
    verify.stderr,
    new RegExp(`^ops: database 127\\.0\\.0\\.1:${pgPort}/pix \\(the embedded PostgreSQL of npm start`),
  );
  // as npm start runs its processes, as development: the same development keys open what they sealed
  const rotate = await opsCli({}, 'secrets:rotate-key', '--dry-run');
  t.is(rotate.code, 0, rotate.stderr);
  t.like(JSON.parse(rotate.stdout), { dryRun: true, key: 'dev' });
  const otherPort = await opsCli({ EMBEDDED_PG_PORT: String(pgPort + 1) }, 'ledger:verify');
  t.is(otherPort.code, 3);
  t.regex(
    otherPort.stderr,
    new RegExp(`EMBEDDED_PG_PORT=${pgPort + 1}, but the embedded PostgreSQL .* listens on port ${pgPort}`),
  );

  const exited = once(npm, 'exit');
  npm.kill('SIGTERM');
  const [code] = await exited;
  t.is(code, 0, lines.join('\n'));
  await assertAllGone(t, procs, ports, lines);
  assertOrder(t, lines);

  const stopped = await opsCli({}, 'ledger:verify');
  t.is(stopped.code, 3);
  t.regex(stopped.stderr, /the embedded PostgreSQL with data in .* is not running: start `npm start`/);
  t.is(stopped.stderr.trim().split('\n').length, 1, stopped.stderr);
});

test.serial(
  'SIGKILL to the npm start process: the supervisor notices and still stops everything in order',
  async (t) => {
    const { npm, lines, procs, ports } = await npmStart(t);
    npm.kill('SIGKILL');
    await assertAllGone(t, procs, ports, lines);
    t.true(
      lines.some((l) => l.includes('parent process gone')),
      lines.join('\n'),
    );
    assertOrder(t, lines);
  },
);

test.serial('SIGKILL to the supervisor: the processes and the database stop by themselves', async (t) => {
  const { lines, procs, ports } = await npmStart(t);
  const supervisor = procs.find((p) => p.cmd.includes('scripts/start.ts'))!;
  process.kill(supervisor.pid, 'SIGKILL');
  await assertAllGone(t, procs, ports, lines);
  t.true(
    lines.some((l) => l.includes('"reason":"supervisor gone"')),
    lines.join('\n'),
  );
});

test.serial(
  'SIGKILL to the database host: PostgreSQL stops (parent-death signal) and so does the service',
  async (t) => {
    const { lines, procs, ports } = await npmStart(t);
    const host = procs.find((p) => p.cmd.includes('scripts/embedded-pg.ts'))!;
    process.kill(host.pid, 'SIGKILL');
    await assertAllGone(t, procs, ports, lines);
  },
);
