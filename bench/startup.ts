// Scenario (e), start: `npm start` (node scripts/start.ts) to "service ready", first with a fresh embedded database
// (initdb included) and then again with the database already initialised, as a developer restarts it.
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, root } from './lib/stack.ts';
import { serverTempDir } from '../src/dev-db/embedded-pg-files.ts';
import { report, round, type Row } from './lib/report.ts';

async function startOnce(dir: string): Promise<number> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    EMBEDDED_PG_DIR: dir,
    EMBEDDED_PG_PORT: String(await freePort()),
    PORT: String(await freePort()),
    LOG_LEVEL: 'info',
  };
  delete env.DATABASE_URL;
  const started = performance.now();
  const child = spawn(process.execPath, [join(root, 'scripts/start.ts')], {
    env,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const ms = await new Promise<number>((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => {
      if (String(d).includes('service ready')) resolve(performance.now() - started);
    });
    child.once('exit', (code) => reject(new Error(`npm start exited with ${code}`)));
  });
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
  return ms;
}

export async function benchStartup(): Promise<Row[]> {
  const dir = serverTempDir('pix-bench-start-');
  try {
    const first = await startOnce(join(dir, 'pg'));
    const again = await startOnce(join(dir, 'pg'));
    const rows: Row[] = [
      { scenario: 'e', metric: 'npm start to ready, fresh database (initdb) s', value: round(first / 1000, 2) },
      {
        scenario: 'e',
        metric: 'npm start to ready, database initialised s',
        value: round(again / 1000, 2),
        target: '< 5',
        pass: again < 5000,
      },
    ];
    report('e-start', rows);
    return rows;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.main) await benchStartup();
