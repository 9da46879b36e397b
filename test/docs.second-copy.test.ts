// docs/operating.md's "second copy" recipe, run as written (its ports swapped for free ones) beside a first `npm
// start`: both serve, each on its own ports and data. The tests run as root here, so the embedded PostgreSQL runs as
// the `postgres` user, which has to pass the recipe's `mktemp -d`.
import test, { type ExecutionContext } from 'ava';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serverTempDir } from '../src/dev-db/embedded-pg-files.ts';
import { alive, freePort, recordDescendants, waitUntilGone } from './support/procs.ts';
import { client } from './support/client.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const firstData = serverTempDir('pix-first-copy-');
test.after.always(() => rmSync(firstData, { recursive: true, force: true }));

function recipe(): string {
  const text = readFileSync(new URL('../docs/operating.md', import.meta.url), 'utf8');
  const block = /^```sh second-copy\n([\s\S]*?)^```$/m.exec(text);
  if (!block) throw new Error('docs/operating.md has no ```sh second-copy block');
  return block[1].trim();
}

// A shell running `command` from the project, as a developer's terminal would (no DATABASE_URL, no NODE_ENV); the
// service is ready once the supervisor says so.
async function shell(t: ExecutionContext, command: string, env: NodeJS.ProcessEnv) {
  const full: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'info', ...env };
  for (const name of ['DATABASE_URL', 'NODE_ENV', 'METRICS_PORT', 'EMBEDDED_PG_DIR', 'PORT', 'EMBEDDED_PG_PORT'])
    if (!(name in env)) delete full[name];
  const sh = spawn('bash', ['-euo', 'pipefail', '-c', command], {
    cwd: root,
    env: full,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  for (const stream of [sh.stdout, sh.stderr]) stream.on('data', (d: Buffer) => lines.push(...String(d).split('\n')));
  const tree = recordDescendants(sh.pid!);
  t.teardown(() => {
    for (const p of tree.stop().filter(alive)) process.kill(p.pid, 'SIGKILL'); // whatever a failed test left
  });
  const deadline = Date.now() + 90_000;
  while (!lines.some((l) => l.includes('service ready')) && sh.exitCode === null && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 100));
  if (!lines.some((l) => l.includes('service ready')))
    throw new Error(`\`${command}\` never got ready:\n${lines.join('\n')}`);
  return { sh, lines, tree };
}

async function stop(sh: ChildProcess, tree: ReturnType<typeof recordDescendants>): Promise<number> {
  const procs = tree.stop();
  const supervisor = procs.find((p) => p.cmd.includes('scripts/start.ts'));
  const exited = once(sh, 'exit');
  if (supervisor) process.kill(supervisor.pid, 'SIGTERM'); // npm forwards nothing here: bash waits on it
  const [code] = (await exited) as [number];
  await waitUntilGone(procs, 20_000);
  return code;
}

test('the second copy of docs/operating.md starts beside a first one, as root, on its own ports and data', async (t) => {
  t.timeout(240_000);
  t.is(process.getuid?.(), 0, 'this test proves the recipe as root: run it as root');
  const written = recipe();
  t.regex(written, /PORT=3100 EMBEDDED_PG_PORT=54400 EMBEDDED_PG_DIR="\$D\/pg" npm start$/);
  const [firstPort, firstPg, secondPort, secondPg] = [
    await freePort(),
    await freePort(),
    await freePort(),
    await freePort(),
  ];

  const first = await shell(t, 'exec npm start', {
    PORT: String(firstPort),
    EMBEDDED_PG_PORT: String(firstPg),
    EMBEDDED_PG_DIR: join(firstData, 'pg'),
  });
  // the recipe as written, but on ports free here
  const command = written.replace('PORT=3100 ', `PORT=${secondPort} `).replace('=54400 ', `=${secondPg} `);
  t.not(command, written);
  const second = await shell(t, command, {});

  for (const port of [firstPort, secondPort])
    t.is((await client(`http://127.0.0.1:${port}`).get('/health')).status, 200);
  const started = (lines: string[]) =>
    lines.map((l) => /"port":"(\d+)","dir":"([^"]+)","msg":"embedded PostgreSQL started"/.exec(l)).find(Boolean);
  const [firstDb, secondDb] = [started(first.lines), started(second.lines)];
  t.is(firstDb?.[1], String(firstPg), first.lines.join('\n'));
  t.is(secondDb?.[1], String(secondPg), second.lines.join('\n'));
  t.regex(secondDb?.[2] ?? '', /\/tmp\.\w+\/pg$/, 'the data in the mktemp directory, not moved elsewhere');
  t.not(firstDb?.[2], secondDb?.[2]);
  const server = (tree: ReturnType<typeof recordDescendants>, port: number) =>
    tree.stop().some((p) => p.cmd.includes('bin/postgres -D') && p.cmd.includes(`-p ${port}`));
  t.true(server(second.tree, secondPg), 'the second copy runs its own PostgreSQL');

  t.is(await stop(second.sh, second.tree), 0, second.lines.join('\n'));
  // the first copy still serves after the second stopped
  t.is((await client(`http://127.0.0.1:${firstPort}`).get('/health')).status, 200);
  t.is(await stop(first.sh, first.tree), 0, first.lines.join('\n'));
  rmSync(secondDb![2].replace(/\/pg$/, ''), { recursive: true, force: true });
});
