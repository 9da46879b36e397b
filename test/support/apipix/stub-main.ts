// Runs the PSP stub as its own process: `node src/acquirer/apipix/stub-main.ts [port]` prints one JSON line with the
// APIPIX_* settings that point the service at it (PEM files in a temporary directory), and stops on SIGTERM/SIGINT.
import { join } from 'node:path';
import { startApiPixStub } from './stub.ts';

const stub = await startApiPixStub({
  port: Number(process.argv[2] ?? 0),
  tokenTtlSeconds: Number(process.env.APIPIX_STUB_TOKEN_TTL ?? 3600),
});
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
  })}\n`,
);

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    void stub.close().then(() => process.exit(0));
  });
}
