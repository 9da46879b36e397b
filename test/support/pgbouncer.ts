// A PgBouncer (Debian's package: /usr/sbin/pgbouncer, or PGBOUNCER_BIN) in front of the test's PostgreSQL, in
// transaction pooling mode as managed platforms run it, on 127.0.0.1 and a free port, configured in a temporary
// directory. server_round_robin spreads transactions over its server connections, so whatever relies on a session
// (a LISTEN, a named prepared statement, a SET) breaks at once rather than by chance.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { serverTempDir, serverUser } from '../../src/dev-db/embedded-pg-files.ts';
import { freePort } from './procs.ts';

export type PgBouncer = { url: string; output: () => string; stop: () => Promise<void> };

export async function startPgBouncer(upstreamUrl: string, opts: { poolSize?: number } = {}): Promise<PgBouncer> {
  const bin = process.env.PGBOUNCER_BIN || '/usr/sbin/pgbouncer';
  if (!existsSync(bin))
    throw new Error(`no PgBouncer at ${bin}: sudo apt-get install -y pgbouncer (or set PGBOUNCER_BIN)`);
  const up = new URL(upstreamUrl);
  const database = up.pathname.slice(1);
  const port = await freePort();
  const dir = serverTempDir('pix-pgbouncer-'); // PgBouncer refuses to run as root: as root, it runs as postgres
  const target = [
    `host=${up.hostname}`,
    `port=${up.port || 5432}`,
    `dbname=${database}`,
    `user=${decodeURIComponent(up.username)}`,
    ...(up.password ? [`password=${decodeURIComponent(up.password)}`] : []),
  ].join(' ');
  writeFileSync(
    join(dir, 'pgbouncer.ini'),
    [
      '[databases]',
      `${database} = ${target}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = any', // clients are not checked; PgBouncer logs in upstream with the user above
      'pool_mode = transaction',
      `default_pool_size = ${opts.poolSize ?? 4}`,
      'server_round_robin = 1',
      'max_client_conn = 1000',
      // after a failed login (the database restarting) PgBouncer refuses every client for this long (default 15 s)
      'server_login_retry = 1',
    ].join('\n'),
  );
  const as = serverUser();
  // setpriv: PgBouncer stops when this test process dies, whatever the way
  const child = spawn('setpriv', ['--pdeathsig', 'TERM', '--', bin, join(dir, 'pgbouncer.ini')], {
    uid: as?.uid,
    gid: as?.gid,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  for (const stream of [child.stdout, child.stderr]) stream.on('data', (d: Buffer) => (output += String(d)));
  const deadline = Date.now() + 10_000;
  while (!output.includes('process up') && child.exitCode === null && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 50));
  if (!output.includes('process up')) {
    child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`PgBouncer did not start:\n${output}`);
  }
  return {
    url: `postgresql://pix:unused@127.0.0.1:${port}/${database}`,
    output: () => output,
    async stop() {
      if (child.exitCode === null) {
        const exited = once(child, 'exit');
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
        await exited;
        clearTimeout(timer);
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
