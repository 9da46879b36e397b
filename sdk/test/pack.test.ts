import test from 'ava';
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { startReceiver } from '../../test/support/receiver.ts';
import type { TestApp } from '../../test/support/app.ts';
import { integrator, startService } from './support.ts';

// An integrator's first hour with the packed package: `npm pack`, `npm install <tarball>` in an empty project, then
// plain JavaScript under the machine's own Node 20 (not the Node 24 this repository runs on).
const run = promisify(execFile);
const sdk = fileURLToPath(new URL('..', import.meta.url));
const tsc = fileURLToPath(new URL('../../node_modules/typescript/bin/tsc', import.meta.url));
// the Node that runs npm (the README asks for ≥ 20: Debian's, nvm's, Homebrew's…), not the project's own Node 24
const NODE20 = process.env.npm_node_execpath || '/usr/bin/node';
// `#!/usr/bin/env node` finds that same Node first, as on the integrator's machine
const PATH20 = `${dirname(NODE20)}:/usr/local/bin:/usr/bin:/bin`;

type LockEntry = { version?: string; dependencies?: Record<string, string>; [field: string]: unknown };

// `npm install` of a tarball in an empty project, without the network a test may not use: npm needs the registry's
// package documents to resolve the tarball's dependencies, and only their tarballs are in the cache. So the project
// gets the lockfile `npm install <tarball>` would write, its entries taken from this repository's lockfile (resolved
// in the configured registry).
function offlineProject(dir: string, tarball: string, integrity: string, registry: string): string {
  const root = JSON.parse(readFileSync(join(sdk, '../package-lock.json'), 'utf8')) as {
    packages: Record<string, LockEntry>;
  };
  const manifest = root.packages.sdk;
  const packages: Record<string, LockEntry> = {
    '': { name: 'loja', dependencies: { '@pix-payments/sdk': `file:${tarball}` } },
    'node_modules/@pix-payments/sdk': {
      ...Object.fromEntries(Object.entries(manifest).filter(([k]) => k !== 'devDependencies' && k !== 'name')),
      resolved: `file:${tarball}`,
      integrity,
    },
  };
  const queue = Object.keys(manifest.dependencies ?? {});
  while (queue.length) {
    const name = queue.shift()!;
    const key = `node_modules/${name}`;
    if (packages[key]) continue;
    const entry = root.packages[`sdk/${key}`] ?? root.packages[key];
    if (!entry?.version) throw new Error(`${name} is not in package-lock.json`);
    packages[key] = {
      ...Object.fromEntries(Object.entries(entry).filter(([k]) => k !== 'dev' && k !== 'peer')),
      // where npm would fetch it (this lockfile may omit it): with it, the cached tarball is used as it is
      resolved: `${registry}${name}/-/${name.split('/').pop()}-${entry.version}.tgz`,
    };
    queue.push(...Object.keys(entry.dependencies ?? {}));
  }
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({ name: 'loja', private: true, type: 'module', dependencies: packages[''].dependencies }),
  );
  writeFileSync(
    join(dir, 'package-lock.json'),
    JSON.stringify({ name: 'loja', lockfileVersion: 3, requires: true, packages }),
  );
  return dir;
}

let app: TestApp;
let close: () => Promise<void>;
let project: string;
test.before(async () => {
  ({ app, close } = await startService());
  project = mkdtempSync(join(tmpdir(), 'sdk-integrator-'));
});
test.after.always(async () => {
  if (project) rmSync(project, { recursive: true, force: true });
  await close?.();
});

// Serial steps of one journey (each under AVA's inactivity timeout on a loaded machine): a step fails when one
// before it did.
let env: Record<string, string>;

test.serial('npm pack ships JavaScript and .d.ts, and installs in an empty project without the network', async (t) => {
  const { stdout: version } = await run(NODE20, ['--version']);
  t.log(`Node ${version.trim()} at ${NODE20}`);
  t.true(Number(version.slice(1).split('.')[0]) >= 20);

  // npm pack builds dist/ (prepack) and lists what it ships
  const packed = await run('npm', ['pack', '--json', '--pack-destination', project], { cwd: sdk });
  const [{ filename, integrity, files }] = JSON.parse(packed.stdout) as [
    { filename: string; integrity: string; files: { path: string }[] },
  ];
  const shipped = files.map((f) => f.path);
  for (const f of ['package.json', 'README.md', 'dist/index.js', 'dist/index.d.ts', 'dist/cli.js', 'dist/openapi.d.ts'])
    t.true(shipped.includes(f), `${f} is not in the tarball`);
  t.false(
    shipped.some((f) => f.startsWith('src/') || f.startsWith('test/')),
    'sources and tests stay out of the tarball',
  );

  // an empty project that depends on the tarball; the dependencies come from npm's cache as `npm ci` left it
  const registry = await run('npm', ['config', 'get', 'registry']);
  await run('npm', ['install', '--offline', '--no-audit', '--no-fund'], {
    cwd: offlineProject(project, filename, integrity, registry.stdout.trim().replace(/\/?$/, '/')),
  });
  t.true(existsSync(join(project, 'node_modules/.bin/pix-payments')));
  // listen's kept secrets in the project, not in the user's ~/.config
  env = { PATH: PATH20, HOME: process.env.HOME ?? '/root', XDG_CONFIG_HOME: join(project, '.config') };
  const imported = await run(
    NODE20,
    ['-e', "import('@pix-payments/sdk').then((m) => console.log(typeof m.verifyWebhook))"],
    {
      cwd: project,
      env,
    },
  );
  t.is(imported.stdout.trim(), 'function');
});

test.serial('a TypeScript consumer of the installed package type-checks, and a wrong body does not', async (t) => {
  writeFileSync(
    join(project, 'consumer.ts'),
    `import { createPixClient, type PixEvent } from '@pix-payments/sdk';
const pix = createPixClient({ baseUrl: 'http://localhost:3000', token: 'lk_x' });
export const created = await pix.POST('/v1/charges', { body: { amount: 100, description: 'x' } });
export const id: string | undefined = created.data?.charge.id;
const charge = await pix.charges.create({ amount: 100, description: 'x' }, { idempotencyKey: 'k1' });
export const status: 'PENDING' | 'PAID' | 'FAILED' | 'REFUNDED' | 'CANCELED' = charge.status;
export const total: number = (await pix.charges.list({ status: 'PAID' })).total;
// @ts-expect-error a refund's amount is a number of centavos
await pix.charges.refund(charge.id, { amount: '100' });
await pix.webhooks.create({ url: 'https://loja.example.com/hook', events: ['charge.paid'] }, { idempotencyKey: 'k' });
// @ts-expect-error an update is not deduplicated by the API: no idempotency key to give
await pix.webhooks.update('id', { name: 'x' }, { idempotencyKey: 'k' });
export function on(e: PixEvent): string {
  return e.event === 'withdraw.failed' ? e.data.status : e.event;
}
// @ts-expect-error amount is a number of centavos
await pix.POST('/v1/charges', { body: { amount: '100', description: 'x' } });
`,
  );
  // as `tsc --init` sets it up (skipLibCheck: standardwebhooks' own .d.ts names Node's Buffer)
  const compilerOptions = {
    strict: true,
    noEmit: true,
    module: 'nodenext',
    target: 'es2022',
    types: [],
    skipLibCheck: true,
  };
  const lib = ['es2023', 'dom', 'dom.iterable']; // a consumer without @types/node: fetch's types from the DOM
  writeFileSync(
    join(project, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: { ...compilerOptions, lib }, files: ['consumer.ts'] }),
  );
  const typed = await run(process.execPath, [tsc, '-p', project], { cwd: project }).catch(
    (err: { stdout: string }) => err,
  );
  t.is(typed.stdout, '', 'tsc on a consumer of the package');
});

test.serial(
  'on Node 20, plain JavaScript creates a charge, listen forwards trigger charge.paid, the delivery verifies',
  async (t) => {
    const { apiKey } = await integrator(app);
    const receiver = await startReceiver();
    t.teardown(() => receiver.close());
    const withApi = { ...env, PIX_TOKEN: apiKey, PIX_BASE_URL: app.baseUrl };
    writeFileSync(
      join(project, 'charge.js'),
      `import { createPixClient } from '@pix-payments/sdk';
const pix = createPixClient({ baseUrl: process.env.PIX_BASE_URL, token: process.env.PIX_TOKEN });
const { data, error } = await pix.POST('/v1/charges', { body: { amount: 1990, description: 'Node 20' } });
console.log(JSON.stringify(data ?? error));
`,
    );
    const charge = JSON.parse((await run(NODE20, ['charge.js'], { cwd: project, env: withApi })).stdout).charge;
    t.like(charge, { amount: 1990, description: 'Node 20', status: 'PENDING' });

    const listen = spawn(join(project, 'node_modules/.bin/pix-payments'), ['listen', '--forward-to', receiver.url()], {
      cwd: project,
      env: withApi,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    t.teardown(() => void listen.kill('SIGKILL'));
    let out = '';
    listen.stdout.on('data', (c: Buffer) => (out += c.toString()));
    while (!/connected to the event stream/.test(out)) {
      if (listen.exitCode !== null) return t.fail(out);
      await new Promise((r) => setTimeout(r, 20));
    }
    const secret = out.match(/signing secret is (whsec_\S+)/)![1];

    const triggered = await run(join(project, 'node_modules/.bin/pix-payments'), ['trigger', 'charge.paid'], {
      cwd: project,
      env: withApi,
    });
    const eventId = triggered.stdout.match(/Triggered charge\.paid: event (\S+)/)![1];
    const [delivery] = await receiver.waitFor(1, 60_000);
    writeFileSync(join(project, 'delivery.json'), JSON.stringify({ headers: delivery.headers, body: delivery.body }));
    writeFileSync(
      join(project, 'verify.js'),
      `import { readFileSync } from 'node:fs';
import { verifyWebhook } from '@pix-payments/sdk';
const { headers, body } = JSON.parse(readFileSync('delivery.json', 'utf8'));
const event = verifyWebhook({ secret: process.argv[2], headers, body });
console.log(JSON.stringify({ id: event.id, event: event.event, status: event.data.status }));
`,
    );
    const verified = JSON.parse((await run(NODE20, ['verify.js', secret], { cwd: project, env })).stdout);
    t.deepEqual(verified, { id: eventId, event: 'charge.paid', status: 'PAID' });
    await t.throwsAsync(run(NODE20, ['verify.js', secret.replace(/.{4}$/, 'AAA=')], { cwd: project, env }));

    listen.kill('SIGINT');
    t.is((await once(listen, 'exit'))[0], 0);
  },
);

// The quick start of the README the package ships, as written, under Node 20 against the real API.
test.serial(
  'the README quick start runs as written: a charge created with its key, a refusal as PixApiError',
  async (t) => {
    const { apiKey, pix } = await integrator(app);
    const readme = readFileSync(join(project, 'node_modules/@pix-payments/sdk/README.md'), 'utf8');
    const quickStart = readme.split('## Quick start')[1].match(/```js\n([\s\S]*?)```/)![1];
    t.regex(quickStart, /idempotencyKey/);
    writeFileSync(join(project, 'quickstart.js'), quickStart);
    const withApi = { ...env, PIX_TOKEN: apiKey, PIX_BASE_URL: app.baseUrl };
    for (const attempt of [1, 2]) {
      const { stdout } = await run(NODE20, ['quickstart.js'], { cwd: project, env: withApi });
      const [created, refused] = stdout.trim().split('\n');
      const [, id] = created.match(/^charge (\S+) PENDING$/)!;
      t.regex(refused, /^refused 422 \S+ \S.* \S+$/, `run ${attempt}`);
      const { charges } = await pix.charges.list();
      t.deepEqual(
        charges.map((c) => c.id),
        [id],
        'the same key: one charge however often it runs',
      );
    }
  },
);

// `npx pix-payments listen` is npm, then `sh -c`, then the CLI: `kill` of npx's pid must not leave the CLI running.
test.serial('kill of `npx pix-payments listen` leaves no process behind', async (t) => {
  const { apiKey } = await integrator(app);
  const npx = spawn('npx', ['--offline', 'pix-payments', 'listen', '--forward-to', 'http://127.0.0.1:9/'], {
    cwd: project,
    env: { ...env, PIX_TOKEN: apiKey, PIX_BASE_URL: app.baseUrl },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  npx.stdout.on('data', (c: Buffer) => (out += c.toString()));
  while (!/connected to the event stream/.test(out)) {
    if (npx.exitCode !== null) return t.fail(out);
    await new Promise((r) => setTimeout(r, 20));
  }
  const descendants = (pid: number): number[] =>
    readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
      .split(' ')
      .filter(Boolean)
      .map(Number)
      .flatMap((child) => [child, ...descendants(child)]);
  const tree = descendants(npx.pid!);
  t.true(tree.length >= 1, 'npx runs the CLI as a child');
  t.teardown(() => tree.forEach((pid) => alive(pid) && process.kill(pid, 'SIGKILL')));
  npx.kill('SIGTERM');
  const deadline = Date.now() + 5_000;
  while (tree.some(alive) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  t.deepEqual(tree.filter(alive), [], 'processes left running');
});

function alive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}
