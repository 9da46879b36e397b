import test from 'ava';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer as createHttpServer } from 'node:http';
import type { Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { freePort } from '../../test/support/procs.ts';
import { startReceiver, type Receiver } from '../../test/support/receiver.ts';
import { startRelay } from '../../test/support/relay.ts';
import type { TestApp } from '../../test/support/app.ts';
import { trigger, verifyWebhook, EVENT_NAMES, type PixClient } from '../src/index.ts';
import { integrator, startService } from './support.ts';

const CLI = fileURLToPath(new URL('../src/cli.ts', import.meta.url));

let app: TestApp;
let close: () => Promise<void>;
const cleanups: (() => Promise<unknown> | void)[] = [];
// the CLI's config directory (listen's secrets): never the user's own
const config = mkdtempSync(join(tmpdir(), 'pix-cli-config-'));
cleanups.push(() => rmSync(config, { recursive: true, force: true }));
test.before(async () => {
  ({ app, close } = await startService());
});
test.after.always(async () => {
  for (const c of cleanups.reverse()) await c(); // the CLIs first: they hold connections to the rest
  await close?.();
});

// The CLI as a developer runs it, in its own process; its output kept line by line.
function cli(args: string[], env: Record<string, string> = {}, command = [process.execPath, CLI]) {
  const child = spawn(command[0], [...command.slice(1), ...args], {
    env: { PATH: process.env.PATH, XDG_CONFIG_HOME: config, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (err += c.toString()));
  // 'close', not 'exit': the exit may come before the last of stderr was read
  const exited = once(child, 'close').then(([code]) => code as number | null);
  cleanups.push(() => void child.kill('SIGKILL'));
  return {
    exited,
    get out() {
      return out;
    },
    get err() {
      return err;
    },
    pid: child.pid!,
    stop: (signal: NodeJS.Signals = 'SIGINT') => child.kill(signal),
    // resolves with the match once the output has it
    async waitFor(pattern: RegExp, timeoutMs = 60_000): Promise<RegExpMatchArray> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const m = out.match(pattern);
        if (m) return m;
        if (Date.now() > deadline || child.exitCode !== null)
          throw new Error(`no ${pattern} in the output:\n${out}\n${err}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
  };
}

async function receiver(): Promise<Receiver> {
  const r = await startReceiver();
  cleanups.push(() => r.close());
  return r;
}

async function payCharge(pix: PixClient, amount: number) {
  const { charge } = (await pix.POST('/v1/charges', { body: { amount, description: 'venda' } })).data!;
  await pix.POST('/v1/sandbox/charges/{id}/pay', { params: { path: { id: charge.id } } });
  return charge;
}

test('listen forwards the events asked for, signed with the secret it printed, the body as the API sends it', async (t) => {
  const { pix, apiKey } = await integrator(app);
  const hook = await receiver();
  const listen = cli(['listen', '--forward-to', hook.url('/hook'), '--events', 'charge.paid,charge.refunded'], {
    PIX_TOKEN: apiKey,
    PIX_BASE_URL: app.baseUrl,
  });
  const [, secret] = await listen.waitFor(/signing secret is (whsec_\S+)/);
  await listen.waitFor(/connected to the event stream/);

  // not asked for (pixkey.updated), then asked for (charge.paid)
  t.is(
    (await pix.POST('/v1/merchants/me/pix-keys', { body: { type: 'CHAVE_ALEATORIA', key: randomUUID() } })).response
      .status,
    201,
  );
  const charge = await payCharge(pix, 4200);
  const [request] = await hook.waitFor(1, 60_000);
  const event = verifyWebhook({ secret, headers: request.headers, body: request.body });
  if (event.event !== 'charge.paid') return t.fail(event.event);
  t.like(event.data, { id: charge.id, status: 'PAID', amount: 4200 });
  t.is(request.headers['webhook-id'], `msg_${event.id.replaceAll('-', '')}`);
  t.is(request.headers['content-type'], 'application/json');
  t.deepEqual((await pix.GET('/v1/events/{id}', { params: { path: { id: event.id } } })).data!.event, event);
  t.throws(() =>
    verifyWebhook({ secret, headers: request.headers, body: request.body.replace('"amount":4200', '"amount":1') }),
  );

  await listen.waitFor(/<-- \[200\] POST/);
  t.is(hook.requests.length, 1); // the PIX key's event came first on the stream, and was left out
  listen.stop();
  t.is(await listen.exited, 0);
});

// A TCP relay to the API that can drop every connection and refuse new ones for a while: a network outage.
async function relay(target: string) {
  const r = await startRelay(new URL(target));
  cleanups.push(r.close);
  return { url: `http://127.0.0.1:${r.port}`, cut: r.cut, restore: r.restore };
}

test('listen resumes after a dropped connection with Last-Event-ID: the event of the outage arrives, none twice', async (t) => {
  const { pix, apiKey } = await integrator(app);
  const hook = await receiver();
  const network = await relay(app.baseUrl);
  const listen = cli(['listen', '--forward-to', hook.url(), '--events', 'charge.paid'], {
    PIX_TOKEN: apiKey,
    PIX_BASE_URL: network.url,
  });
  const [, secret] = await listen.waitFor(/signing secret is (whsec_\S+)/);
  await listen.waitFor(/connected to the event stream/);
  const before = await payCharge(pix, 100);
  await hook.waitFor(1, 60_000);

  network.cut();
  await listen.waitFor(/stream lost/);
  const during = await payCharge(pix, 200);
  const paid = async () =>
    (await pix.GET('/v1/charges/{id}', { params: { path: { id: during.id } } })).data!.charge.status === 'PAID';
  while (!(await paid())) await new Promise((r) => setTimeout(r, 50));
  network.restore();

  const requests = await hook.waitFor(2, 60_000);
  const events = requests.map((r) => verifyWebhook({ secret, headers: r.headers, body: r.body }));
  t.deepEqual(
    events.map((e) => e.data.id),
    [before.id, during.id],
  );
  // it came back asking for what follows the last event it had forwarded
  t.true(listen.out.includes(`connected to the event stream after ${events[0].id}`), listen.out);
  const after = await payCharge(pix, 300);
  await hook.waitFor(3, 60_000);
  t.deepEqual(
    hook.requests.map((r) => verifyWebhook({ secret, headers: r.headers, body: r.body }).data.id),
    [before.id, during.id, after.id],
  );
});

test('trigger charge.paid creates a charge and pays it in the sandbox; the API records the event', async (t) => {
  const { pix, apiKey } = await integrator(app);
  const run = cli(['trigger', 'charge.paid', '--token', apiKey, '--base-url', app.baseUrl]);
  t.is(await run.exited, 0, run.err);
  // still accepted, with a warning: a command line is readable by every user of the machine
  t.regex(run.err, /warning: --token shows in `ps`.*PIX_TOKEN/s);
  const [, eventId] = run.out.match(/Triggered charge\.paid: event ([0-9a-f-]{36})/)!;
  const { event } = (await pix.GET('/v1/events/{id}', { params: { path: { id: eventId } } })).data!;
  if (event.event !== 'charge.paid') return t.fail(event.event);
  t.is(event.data.status, 'PAID');
  t.is(event.data.description, 'pix-payments trigger');
});

// Made by the operator (an infraction accepted) or by the daily job of a later day (the expiries): explained, not faked.
const NOT_BY_THE_API = ['infraction.refund_completed', 'mandate.expired', 'recurring_charge.expired'];

test('trigger produces each event the sandbox can, Pix Automático included; the others are explained, not faked', async (t) => {
  t.timeout(240_000);
  const { pix, apiKey } = await integrator(app, { company: true });
  const producible = EVENT_NAMES.filter((e) => !NOT_BY_THE_API.includes(e));
  for (const name of producible) {
    const { eventId, resourceId } = await trigger(pix, name);
    const { event } = (await pix.GET('/v1/events/{id}', { params: { path: { id: eventId } } })).data!;
    t.is(event.event, name);
    t.is(event.data.id, resourceId);
  }
  const seen = (await pix.GET('/v1/events', { params: { query: { limit: 100 } } })).data!.events.map((e) => e.event);
  t.deepEqual([...new Set(seen)].sort(), [...producible].sort());

  const operatorOnly = cli(['trigger', 'infraction.refund_completed'], {
    PIX_TOKEN: apiKey,
    PIX_BASE_URL: app.baseUrl,
  });
  t.is(await operatorOnly.exited, 1);
  t.regex(operatorOnly.err, /infraction:accept/);
  for (const expiry of ['mandate.expired', 'recurring_charge.expired']) {
    const dailyJob = cli(['trigger', expiry], { PIX_TOKEN: apiKey, PIX_BASE_URL: app.baseUrl });
    t.is(await dailyJob.exited, 1);
    t.regex(dailyJob.err, /npm run ops -- recurring:run --date/);
  }
  const events = (await pix.GET('/v1/events', { params: { query: { limit: 100 } } })).data!.total;
  t.is(events, seen.length, 'the explanations made nothing');
  const unknown = cli(['trigger', 'charge.created'], { PIX_TOKEN: apiKey, PIX_BASE_URL: app.baseUrl });
  t.is(await unknown.exited, 2);
  t.regex(unknown.err, /trigger needs one of: charge\.paid/);
  const anonymous = cli(['trigger', 'charge.paid'], { PIX_BASE_URL: app.baseUrl });
  t.is(await anonymous.exited, 2);
  t.regex(anonymous.err, /PIX_TOKEN/);
  const refused = cli(['listen', '--forward-to', 'http://127.0.0.1:9/'], {
    PIX_TOKEN: 'lk_nope',
    PIX_BASE_URL: app.baseUrl,
  });
  t.is(await refused.exited, 1);
  t.regex(refused.err, /Chave de API inválida/);
});

// An HTTP proxy on 127.0.0.1 that the CLI's fetch goes through (NODE_USE_ENV_PROXY, HTTP(S)_PROXY): what the CLI would
// send to another host comes here, so a test sees it and nothing leaves the machine (the proxy resolves no name).
// Node tunnels plain http too (CONNECT host:80): the tunnel is answered, and the request read in clear; an https
// tunnel (host:443) is refused, only its CONNECT seen.
async function proxy() {
  const tunnels: string[] = [];
  const requests: { host?: string; url?: string; authorization?: string }[] = [];
  const origin = createHttpServer((req, res) => {
    requests.push({ host: req.headers.host, url: req.url, authorization: req.headers.authorization });
    res.writeHead(503, { 'content-type': 'application/json' }).end('{"message":"proxy"}');
  });
  const server = createHttpServer((req, res) => {
    requests.push({ host: req.headers.host, url: req.url, authorization: req.headers.authorization });
    res.writeHead(502).end();
  });
  server.on('connect', (req, socket: Socket) => {
    tunnels.push(req.url ?? '');
    socket.on('error', () => {});
    if (req.url?.endsWith(':443')) return void socket.end('HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\n\r\n');
    socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    origin.emit('connection', socket);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  cleanups.push(() => {
    server.closeAllConnections();
    origin.closeAllConnections();
    return new Promise((r) => server.close(r));
  });
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return { tunnels, requests, env: { NODE_USE_ENV_PROXY: '1', HTTP_PROXY: url, HTTPS_PROXY: url } };
}

test('the CLI never sends its credential over plain http to a host that is not loopback; https goes', async (t) => {
  const seen = await proxy();
  const token = 'lk_segredo_que_nao_pode_vazar';
  for (const baseUrl of [
    'http://pix.example.test',
    'http://pix.example.test:3000/',
    'HTTP://API.EXAMPLE.TEST',
    'http://10.0.0.7:3000',
    'http://192.168.0.10',
    'http://localhost.example.test',
    'http://127.0.0.1.nip.io',
    'http://[::ffff:a00:7]',
    'ftp://pix.example.test',
  ]) {
    for (const run of [
      cli(['trigger', 'charge.paid'], { ...seen.env, PIX_TOKEN: token, PIX_BASE_URL: baseUrl }),
      cli(['listen', '--forward-to', 'http://127.0.0.1:9/', '--base-url', baseUrl], { ...seen.env, PIX_TOKEN: token }),
    ]) {
      t.is(await run.exited, 2, `${baseUrl}: ${run.err}`);
      t.regex(run.err, /refuses to send your credential .* use https/, baseUrl);
    }
  }
  t.deepEqual(seen.tunnels, [], 'not a connection was attempted');
  t.deepEqual(seen.requests, []);

  // https to the same host is what the CLI is for: it goes (and the proxy refuses the tunnel)
  const https = cli(['trigger', 'charge.paid'], {
    ...seen.env,
    PIX_TOKEN: token,
    PIX_BASE_URL: 'https://pix.example.test',
  });
  t.is(await https.exited, 1, https.err);
  t.true(seen.tunnels.includes('pix.example.test:443'), seen.tunnels.join());
  t.deepEqual(seen.requests, []);
});

test('plain http is accepted to loopback: localhost, 127.0.0.0/8 and ::1', async (t) => {
  // the API, reached by name: its 401 for an unknown key proves the request arrived
  const { port } = new URL(app.baseUrl);
  const local = cli(['trigger', 'charge.paid'], { PIX_TOKEN: 'lk_nope', PIX_BASE_URL: `http://LocalHost:${port}` });
  t.is(await local.exited, 1, local.err);
  t.regex(local.err, /HTTP 401 Chave de API inválida/);
  t.notRegex(local.err, /warning/, 'PIX_TOKEN draws no warning');
  // elsewhere on loopback nothing listens: the attempt is made (connection refused), not refused by the CLI
  const free = await freePort();
  for (const baseUrl of [`http://127.0.0.1:${free}`, `http://127.45.6.7:${free}`, `http://[::1]:${free}`]) {
    const run = cli(['trigger', 'charge.paid'], { PIX_TOKEN: 'lk_nope', PIX_BASE_URL: baseUrl });
    t.is(await run.exited, 1, `${baseUrl}: ${run.err}`);
    t.regex(run.err, /ECONNREFUSED/, baseUrl);
  }
});

test('listen keeps one secret per merchant across runs, prints it with --print-secret; --secret overrides', async (t) => {
  const a = await integrator(app);
  const b = await integrator(app);
  const own = mkdtempSync(join(config, 'secrets-')); // this test's config directory, shared by no other test
  const env = (apiKey: string) => ({ PIX_TOKEN: apiKey, PIX_BASE_URL: app.baseUrl, XDG_CONFIG_HOME: own });
  const printed = async (apiKey: string, extra: string[] = []) => {
    const run = cli(['listen', '--print-secret', ...extra], env(apiKey));
    t.is(await run.exited, 0, run.err);
    return run.out;
  };
  const first = await printed(a.apiKey);
  t.regex(first, /^whsec_[A-Za-z0-9+/]{43}=\n$/, 'the secret alone, for $(…)');
  const secret = first.trim();
  t.is(await printed(a.apiKey), first, 'the same on the next run');
  t.not((await printed(b.apiKey)).trim(), secret, 'each merchant its own');

  const file = join(own, 'pix-payments', 'listen-secrets.json');
  t.is(statSync(file).mode & 0o777, 0o600);
  t.is(statSync(join(own, 'pix-payments')).mode & 0o777, 0o700);
  const saved = JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>;
  t.is(saved[`${app.baseUrl} ${a.merchantId}`], secret);
  t.is(Object.keys(saved).length, 2);

  // a run of listen signs with it, and says so at start
  const hook = await receiver();
  const listen = cli(['listen', '--forward-to', hook.url()], env(a.apiKey));
  t.is((await listen.waitFor(/signing secret is (whsec_\S+)/))[1], secret);
  await listen.waitFor(/connected to the event stream/);
  await payCharge(a.pix, 100);
  const [request] = await hook.waitFor(1, 60_000);
  t.is(verifyWebhook({ secret, headers: request.headers, body: request.body }).event, 'charge.paid');
  listen.stop('SIGTERM');
  t.is(await listen.exited, 0);

  const given = `whsec_${Buffer.alloc(32, 1).toString('base64')}`;
  t.is((await printed(a.apiKey, ['--secret', given])).trim(), given);
  t.is((await printed(a.apiKey)).trim(), secret, 'the kept one is left as it was');
});

// /proc/<pid>/stat's state, undefined once the process is gone (a zombie counts as gone: it runs nothing)
function running(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

async function gone(pid: number, timeoutMs = 5_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (running(pid)) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 20));
  }
  return true;
}

test('SIGTERM and SIGINT end listen promptly, and killing its launcher (as `kill <npx pid>`) ends it too', async (t) => {
  const { apiKey } = await integrator(app);
  const hook = await receiver();
  const env = { PIX_TOKEN: apiKey, PIX_BASE_URL: app.baseUrl };
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    const listen = cli(['listen', '--forward-to', hook.url()], env);
    await listen.waitFor(/connected to the event stream/);
    const at = performance.now();
    listen.stop(signal);
    t.is(await listen.exited, 0, signal);
    t.true(performance.now() - at < 3_000, `${signal} took ${performance.now() - at} ms`);
    t.false(running(listen.pid));
  }

  // npx runs the bin under `sh -c`, which passes no signal on: the launcher killed, the CLI must notice
  const launcher = cli(['listen', '--forward-to', hook.url()], env, [
    '/bin/sh',
    '-c',
    `"${process.execPath}" "${CLI}" "$@"; echo launcher done`,
    'sh',
  ]);
  await launcher.waitFor(/connected to the event stream/);
  const [child] = readFileSync(`/proc/${launcher.pid}/task/${launcher.pid}/children`, 'utf8').trim().split(' ');
  t.true(running(Number(child)));
  cleanups.push(() => void (running(Number(child)) && process.kill(Number(child), 'SIGKILL')));
  launcher.stop('SIGTERM'); // not awaiting its 'close': an orphan would keep its stdout open
  t.true(await gone(Number(child)), 'the CLI outlived its launcher');
});
