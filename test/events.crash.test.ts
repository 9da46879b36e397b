import test from 'ava';
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { startTestApp, type TestApp } from './support/app.ts';
import { createMerchant } from './support/factories.ts';
import { openSse, type SseClient } from './support/sse.ts';
import { freePort } from './support/procs.ts';
import { waitUntil } from './support/receiver.ts';
import { openTransaction, recordPixKeyEvent, sql } from './events.helpers.ts';
import { setupDatabase } from '../src/database.ts';
import { createLogger } from '../src/platform/logger.ts';
import { serverTempDir } from '../src/dev-db/embedded-pg-files.ts';
import { startDatabase } from '../chaos/lib/cluster.ts';

// The stream across crashes, with real processes: an API process killed with SIGKILL while a client is connected
// (the client resumes against a new process), an API stopped by SIGTERM (its streams end at once), and a PostgreSQL
// crashed and restarted under an open stream. Every event arrives exactly once, in stream order.
const children = new Set<ChildProcess>();
const clients = new Set<SseClient>();
test.after.always(async () => {
  for (const c of clients) c.close();
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
});

async function startApi(databaseUrl: string): Promise<{ child: ChildProcess; base: string }> {
  const port = await freePort();
  const child = fork('apps/api/main.ts', [], {
    env: {
      ...process.env,
      NODE_ENV: 'test',
      DATABASE_URL: databaseUrl,
      PORT: String(port),
      LOG_LEVEL: 'silent',
      RATE_LIMIT_ENABLED: 'false',
    },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  children.add(child);
  await new Promise<void>((resolve, reject) => {
    child.on('message', (m) => m === 'ready' && resolve());
    child.once('exit', (code) => reject(new Error(`api exited with ${code} before it was ready`)));
  });
  return { child, base: `http://127.0.0.1:${port}` };
}

async function connect(base: string, token: string, lastEventId?: string) {
  const c = await openSse(base, '/v1/events/stream', token, lastEventId ? { 'last-event-id': lastEventId } : {});
  clients.add(c);
  return c;
}

// Events keep coming, some committing out of id order, until stop() (which returns how many were recorded).
function writer(app: TestApp, merchantId: string) {
  let stopping = false;
  let n = 0;
  const done = (async () => {
    while (!stopping) {
      if (n % 4 === 0) {
        const early = await openTransaction(app, merchantId);
        await recordPixKeyEvent(app, merchantId);
        await early.commit();
        n += 2;
      } else {
        await recordPixKeyEvent(app, merchantId);
        n++;
      }
      await new Promise((r) => setTimeout(r, 15));
    }
  })();
  return {
    stop: async () => {
      stopping = true;
      await done;
      return n;
    },
  };
}

async function expectAllInOrder(t: import('ava').ExecutionContext, app: TestApp, merchantId: string, seen: string[]) {
  const positions = (
    await sql<{ event_id: string }>(app, 'select event_id from event_stream where merchant_id = ? order by seq', [
      merchantId,
    ])
  ).map((p) => p.event_id);
  t.is(new Set(seen).size, seen.length, 'no event twice');
  t.deepEqual(seen, positions, 'every event, in stream order');
}

test.serial('an API process killed with SIGKILL mid-stream: the client resumes on a new one with no gap', async (t) => {
  const app = await startTestApp();
  t.teardown(() => app.close());
  const m = await createMerchant(app);
  const first = await startApi(app.databaseUrl);
  const before = await connect(first.base, m.token);
  const w = writer(app, m.merchantId);
  await before.waitForEvents(10, 20_000);

  first.child.kill('SIGKILL');
  await once(first.child, 'exit');
  await before.ended; // the connection broke
  await new Promise((r) => setTimeout(r, 500)); // events keep committing while no API runs

  const second = await startApi(app.databaseUrl);
  const after = await connect(second.base, m.token, before.lastEventId);
  t.is(after.status, 200, 'the dead process still holds its place for a while: there is room for the resume');
  const total = await w.stop();
  await waitUntil(async () => before.events.length + after.events.length >= total, 30_000, 'every event streamed');
  await expectAllInOrder(
    t,
    app,
    m.merchantId,
    [...before.events, ...after.events].map((e) => e.id),
  );
  t.log(`${before.events.length} events before the kill, ${after.events.length} after the resume`);

  // SIGTERM: the stream ends at once (the client reconnects elsewhere), the process exits 0
  const stopping = Date.now();
  second.child.kill('SIGTERM');
  await after.ended;
  const [code] = (await once(second.child, 'exit')) as [number];
  t.is(code, 0);
  t.true(Date.now() - stopping < 10_000, `stopped in ${Date.now() - stopping} ms`);
});

test.serial('PostgreSQL crashed and restarted under an open stream: it carries on with no gap', async (t) => {
  const dir = serverTempDir('pix-events-pg-');
  const db = await startDatabase(join(dir, 'pg'), await freePort());
  t.teardown(async () => {
    await db.stop().catch(() => {});
    rmSync(dir, { recursive: true, force: true });
  });
  await setupDatabase(db.url, createLogger('warn', 'test'));
  const app = await startTestApp({}, { databaseUrl: db.url });
  t.teardown(() => app.close());
  const m = await createMerchant(app);
  const s = await connect(app.baseUrl, m.token);
  const before = await recordPixKeyEvent(app, m.merchantId);
  await s.waitForEvents(1);

  await db.crash();
  await db.restart();
  // the first writes after the restart may meet connections the crash broke: retried as a client would
  const recorded = [before.id];
  for (let i = 0; i < 5; i++)
    for (let attempt = 0; ; attempt++) {
      try {
        recorded.push((await recordPixKeyEvent(app, m.merchantId)).id);
        break;
      } catch (err) {
        if (attempt > 20) throw err;
        await new Promise((r) => setTimeout(r, 250));
      }
    }
  await s.waitForEvents(recorded.length, 30_000);
  t.deepEqual(
    s.events.map((e) => e.id),
    recorded,
    'the same connection: nothing missed, nothing twice',
  );
  await expectAllInOrder(
    t,
    app,
    m.merchantId,
    s.events.map((e) => e.id),
  );
});
