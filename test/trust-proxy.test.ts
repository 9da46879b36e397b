import test from 'ava';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createTestDatabase } from './support/db.ts';
import { freePort } from './support/procs.ts';
import { startTestApp, type TestApp } from './support/app.ts';
import { client } from './support/client.ts';

// Which address is the client's (TRUST_PROXY), seen through the per-IP budget of POST /v1/auth/login: 2 attempts per
// minute per client IP. Each request comes from 127.0.0.1 carrying an X-Forwarded-For, as a client or a proxy sends it.
const LIMITS = {
  RATE_LIMIT_ENABLED: 'true',
  RATE_LIMIT_AUTH_IP_PER_MINUTE: '2',
  RATE_LIMIT_AUTH_EMAIL_PER_MINUTE: '100',
};
const apps: TestApp[] = [];
test.after.always(async () => {
  for (const app of apps) await app.close();
});

let n = 0;
async function start(env: Record<string, string>) {
  const app = await startTestApp({ ...LIMITS, ...env }); // its own database: its own budgets
  apps.push(app);
  // statuses of logins sent with these X-Forwarded-For values, in order (401: counted, 429: over that IP's budget)
  return async (...forwarded: string[]) => {
    const statuses: number[] = [];
    for (const xff of forwarded) {
      const res = await client(app.baseUrl).post(
        '/v1/auth/login',
        { email: `nobody-${n++}@example.com`, password: 'wrong' },
        { 'x-forwarded-for': xff },
      );
      statuses.push(res.status);
    }
    return statuses;
  };
}

test.serial('unset outside a known platform: X-Forwarded-For is ignored, the connection is the client', async (t) => {
  const login = await start({});
  // three "different" clients are one: 127.0.0.1
  t.deepEqual(await login('198.51.100.1', '198.51.100.2', '198.51.100.3'), [401, 401, 429]);
});

test.serial(
  "unset on Heroku (DYNO): the router's entry, the last one, is the client; what the client wrote is not",
  async (t) => {
    const login = await start({ DYNO: 'web.1' });
    t.deepEqual(await login('203.0.113.7', 'spoofed, 203.0.113.7', '203.0.113.8', '203.0.113.7'), [401, 401, 401, 429]);
    // a client rotating a forged first entry still spends its own budget
    t.deepEqual(await login('1.1.1.1, 203.0.113.9', '2.2.2.2, 203.0.113.9', '3.3.3.3, 203.0.113.9'), [401, 401, 429]);
  },
);

test.serial(
  'TRUST_PROXY=2 (e.g. a CDN before the router): the second entry from the right is the client',
  async (t) => {
    const login = await start({ TRUST_PROXY: '2' });
    t.deepEqual(
      await login('x, 192.0.2.1, 10.0.0.1', 'y, 192.0.2.1, 10.0.0.2', '192.0.2.1, 10.0.0.3'),
      [401, 401, 429],
    );
  },
);

test.serial('TRUST_PROXY=false behind nothing: every client is the connection, whatever it claims', async (t) => {
  const login = await start({ TRUST_PROXY: 'false' });
  t.deepEqual(await login('192.0.2.50', '192.0.2.51', '192.0.2.52'), [401, 401, 429]);
});

test.serial(
  'TRUST_PROXY=loopback: addresses of the listed proxies are skipped, the first other one is the client',
  async (t) => {
    const login = await start({ TRUST_PROXY: 'loopback' });
    t.deepEqual(
      await login('192.0.2.60, 127.0.0.1', '192.0.2.60', '192.0.2.61, ::1', '192.0.2.60'),
      [401, 401, 401, 429],
    );
  },
);

test('the API warns once at start when TRUST_PROXY lets clients pick their IP', async (t) => {
  const child = spawn(process.execPath, ['apps/api/main.ts'], {
    env: {
      ...process.env,
      NODE_ENV: 'test',
      LOG_LEVEL: 'info',
      TRUST_PROXY: '1',
      DATABASE_URL: await createTestDatabase(),
      PORT: String(await freePort()),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  t.teardown(() => void child.kill('SIGKILL'));
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += String(d)));
  for (let i = 0; i < 300 && !out.includes('"msg":"ready"'); i++) await new Promise((r) => setTimeout(r, 50));
  child.kill('SIGTERM');
  await once(child, 'exit');
  const warnings = out
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { level: number; msg: string })
    .filter((l) => l.level === 40);
  t.is(warnings.length, 1, out);
  t.regex(warnings[0]!.msg, /^TRUST_PROXY=1 trusts 1 proxy hop\(s\) and no known platform was detected/);
});
