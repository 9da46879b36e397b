import test from 'ava';
import express from 'express';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { startTestApp, type TestApp } from './support/app.ts';
import { client } from './support/client.ts';
import { apiPixEnv, startApiPixStub, type ApiPixStub } from './support/apipix/stub.ts';
import { createTestCerts, type TestCerts } from './support/apipix/test-certs.ts';
import { errorHandler, requestLogger } from '../src/platform/http.ts';
import { REDACT_PATHS } from '../src/platform/logger.ts';

// The PSP's webhook URL carries APIPIX_WEBHOOK_TOKEN as a path segment: no log line may show it.
const TOKEN = 'tok_' + 'f00dcafe'.repeat(5);

function capture() {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, cb) {
      lines.push(String(chunk));
      cb();
    },
  });
  return { lines, logger: pino({ level: 'trace', redact: { paths: REDACT_PATHS, censor: '[redacted]' } }, sink) };
}

let certs: TestCerts;
let stub: ApiPixStub;
let app: TestApp;
const logs = capture();
test.before(async () => {
  certs = createTestCerts();
  stub = await startApiPixStub({ certs });
  app = await startTestApp(apiPixEnv(stub, certs.dir, TOKEN), { logger: logs.logger });
});
test.after.always(async () => {
  await app?.close();
  await stub?.close();
  certs?.remove();
});

test("the PSP's calls are logged with the webhook token redacted, whatever the outcome", async (t) => {
  const pix = [
    { endToEndId: 'E' + '1'.repeat(31), txid: 'a'.repeat(26), valor: '10.50', horario: '2026-11-20T12:00:00Z' },
  ];
  const psp = client(app.baseUrl);
  t.is((await psp.post(`/v1/acquirer/apipix/${TOKEN}/pix`, { pix }, { 'x-request-id': 'psp-ok' })).status, 200);
  t.is((await psp.post(`/V1/Acquirer/ApiPix/${TOKEN}`, { pix: [] }, { 'x-request-id': 'psp-bad' })).status, 400);
  const near = TOKEN.slice(0, -1) + 'x';
  t.is((await psp.post(`/v1/acquirer/apipix/${near}/pix?x=1`, { pix }, { 'x-request-id': 'psp-401' })).status, 401);

  const all = logs.lines.join('');
  t.false(all.includes(TOKEN.slice(4)), 'the token appears in the logs');
  t.false(all.includes(near.slice(4)), 'a near-miss token appears in the logs');
  const urlOf = (id: string) => {
    const line = logs.lines.map((l) => JSON.parse(l)).find((l) => l.req?.id === id);
    return line?.req?.url as string | undefined;
  };
  t.is(urlOf('psp-ok'), '/v1/acquirer/apipix/[redacted]/pix');
  t.is(urlOf('psp-bad'), '/V1/Acquirer/ApiPix/[redacted]');
  t.is(urlOf('psp-401'), '/v1/acquirer/apipix/[redacted]/pix?x=1');
});

test('an error logged while handling such a request carries the redacted URL too', async (t) => {
  const { lines, logger } = capture();
  const crashing = express();
  crashing.use(requestLogger(logger));
  crashing.post('/v1/acquirer/apipix/:token', () => {
    throw new Error('boom');
  });
  crashing.use(errorHandler);
  const server = crashing.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  t.teardown(() => void server.close());
  const { port } = server.address() as { port: number };
  const res = await fetch(`http://127.0.0.1:${port}/v1/acquirer/apipix/${TOKEN}`, { method: 'POST' });
  t.is(res.status, 500);
  const parsed = lines.map((l) => JSON.parse(l) as { msg: string; req?: { url: string } });
  t.is(parsed.find((l) => l.msg === 'unhandled error')?.req?.url, '/v1/acquirer/apipix/[redacted]');
  t.false(lines.join('').includes(TOKEN.slice(4)));
});
