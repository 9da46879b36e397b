import test from 'ava';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { createTestDatabase } from './support/db.ts';
import { client } from './support/client.ts';

async function freePort(): Promise<number> {
  const s = createServer().listen(0, '127.0.0.1');
  await once(s, 'listening');
  const { port } = s.address() as { port: number };
  s.close();
  return port;
}

// Starts one process as the Procfile does and collects its JSON log lines.
function startProcess(app: string, env: Record<string, string>) {
  const child = spawn(process.execPath, [`apps/${app}/main.ts`], {
    env: { ...process.env, LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  child.stdout.on('data', (d: Buffer) => lines.push(...String(d).split('\n').filter(Boolean)));
  child.stderr.on('data', (d: Buffer) => lines.push(String(d)));
  const waitFor = async (re: RegExp) => {
    for (let i = 0; i < 300 && !lines.some((l) => re.test(l)); i++) await new Promise((r) => setTimeout(r, 50));
    if (!lines.some((l) => re.test(l))) throw new Error(`${app} never logged ${re}: ${lines.join('\n')}`);
  };
  return { child, lines, waitFor };
}

for (const app of ['api', 'worker', 'webhooks']) {
  test(`${app}: SIGTERM stops it gracefully with exit code 0`, async (t) => {
    const port = await freePort();
    const p = startProcess(app, { DATABASE_URL: await createTestDatabase(), PORT: String(port) });
    await p.waitFor(/listening|ready/);
    if (app === 'api') {
      const res = await client(`http://127.0.0.1:${port}`).get('/health');
      t.is(res.status, 200);
    }
    p.child.kill('SIGTERM');
    const [code] = await once(p.child, 'exit');
    t.is(code, 0, p.lines.join('\n'));
    t.true(p.lines.some((l) => l.includes('"msg":"stopped"')));
  });
}
