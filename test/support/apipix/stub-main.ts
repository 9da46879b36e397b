// npm run stub:apipix [-- port]: the PSP stub as its own process, to run the service against by hand
// (docs/psp.md). Prints one JSON line with the APIPIX_* settings that point the service at it (PEM files in a
// temporary directory) and the address of its control API, which plays the payer and the SPI:
//   POST <control>/pay/<txid>[?amount=<centavos>][&horario=<RFC 3339>]   the payer pays (the registered webhook is
//                                                        notified); a cobv: by default the amount due on that day
//   GET  <control>/violations                             request bodies refused by the standard's schemas
//   POST <control>/devolucoes/<e2eid>/<id>/<DEVOLVIDO|NAO_REALIZADO>   the SPI settles a devolução (notified)
//   POST <control>/envios/<idEnvio>/<REALIZADO|NAO_REALIZADO>          the SPI settles a transfer
//   POST <control>/recs/<idRec>/<APROVADA|REJEITADA|CANCELADA>          the payer approves, rejects or cancels a rec
//   POST <control>/cobrs/<txid>/ATIVA                     the payer's PSP schedules a cobr
//   POST <control>/cobrs/<txid>/<PAGA|REJEITADA>[?codigo=] its open tentativa is paid (a Pix, notified) or rejected
//   GET  <control>/state                                  cobs, cobvs, Pix (with devoluções), envios, webhooks, recs,
//                                                         cobrs
// Only 127.0.0.1 listens. Stops on SIGTERM/SIGINT.
import { createServer } from 'node:http';
import { once } from 'node:events';
import { join } from 'node:path';
import { startApiPixStub } from './stub.ts';

const stub = await startApiPixStub({
  port: Number(process.argv[2] ?? 0),
  tokenTtlSeconds: Number(process.env.APIPIX_STUB_TOKEN_TTL ?? 3600),
});

const control = createServer((req, res) => {
  const reply = (status: number, body: unknown) =>
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body, null, 2));
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
  const [what, a, b, c] = url.pathname.split('/').filter(Boolean).map(decodeURIComponent);
  Promise.resolve()
    .then(async () => {
      if (req.method === 'GET' && what === 'state')
        return reply(200, {
          cobs: [...stub.state.cobs.values()],
          cobvs: [...stub.state.cobvs.values()],
          pix: [...stub.state.pix.values()],
          envios: [...stub.state.envios.values()],
          webhooks: [...stub.state.webhooks.values()],
          recs: [...stub.state.recs.values()],
          cobrs: [...stub.state.cobrs.values()],
        });
      if (req.method === 'GET' && what === 'violations') return reply(200, stub.schemaViolations);
      if (req.method !== 'POST') return reply(404, { error: 'not found' });
      if (what === 'pay' && a) {
        const amount = url.searchParams.get('amount');
        const horario = url.searchParams.get('horario');
        return reply(
          200,
          await stub.pay(a, {
            ...(amount === null ? {} : { amount: Number(amount) }),
            ...(horario === null ? {} : { horario: new Date(horario) }),
          }),
        );
      }
      if (what === 'devolucoes' && a && b && (c === 'DEVOLVIDO' || c === 'NAO_REALIZADO'))
        return reply(200, await stub.settleDevolucao(a, b, c));
      if (what === 'recs' && a && b === 'APROVADA') return reply(200, { notified: await stub.approveRec(a) });
      if (what === 'recs' && a && b === 'REJEITADA') return reply(200, { notified: await stub.rejectRec(a) });
      if (what === 'recs' && a && b === 'CANCELADA') return reply(200, { notified: await stub.payerCancelRec(a) });
      if (what === 'cobrs' && a && b === 'ATIVA') return reply(200, { notified: await stub.activateCobR(a) });
      if (what === 'cobrs' && a && (b === 'PAGA' || b === 'REJEITADA'))
        return reply(200, await stub.settleTentativa(a, b, { codigo: url.searchParams.get('codigo') ?? undefined }));
      if (what === 'envios' && a && (b === 'REALIZADO' || b === 'NAO_REALIZADO'))
        return reply(200, stub.settleEnvio(a, b));
      return reply(404, { error: 'not found' });
    })
    .catch((err: unknown) => reply(400, { error: String(err) }));
});
control.listen(Number(process.env.APIPIX_STUB_CONTROL_PORT ?? 0), '127.0.0.1');
await once(control, 'listening');

const dir = stub.certs.dir;
process.stdout.write(
  `${JSON.stringify({
    APIPIX_BASE_URL: stub.baseUrl,
    APIPIX_CLIENT_ID: stub.clientId,
    APIPIX_CLIENT_SECRET: stub.clientSecret,
    APIPIX_CERT_FILE: join(dir, 'client.pem'),
    APIPIX_KEY_FILE: join(dir, 'client.key'),
    APIPIX_CA_FILE: join(dir, 'ca.pem'),
    APIPIX_PIX_KEY: stub.pixKey,
    APIPIX_ACCOUNT: `${stub.account.agencia ?? ''}/${stub.account.conta}/${stub.account.tipoConta}`,
    control: `http://127.0.0.1:${(control.address() as { port: number }).port}`,
  })}\n`,
);

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    control.close();
    void stub.close().then(() => process.exit(0));
  });
}
