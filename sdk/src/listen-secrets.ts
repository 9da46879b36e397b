import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { newWebhookSecret } from './webhooks.ts';

// Where `listen` keeps one signing secret per API and merchant, so the receiver's PIX_WEBHOOK_SECRET stays valid
// across runs: $XDG_CONFIG_HOME/pix-payments/listen-secrets.json (~/.config/… by default), readable by its owner only.
export function secretsFile(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CONFIG_HOME || join(env.HOME || homedir(), '.config');
  return join(base, 'pix-payments', 'listen-secrets.json');
}

// The API as one key whatever the spelling: http://LOCALHOST:3000/ and http://localhost:3000 are the same.
const apiKey = (baseUrl: string) => new URL(baseUrl).href.replace(/\/+$/, '');

function read(file: string): Record<string, string> {
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as unknown;
    return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, string>) : {};
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new Error(`cannot read ${file}: ${(err as Error).message}`, { cause: err });
  }
}

// The merchant's secret at this API, made and saved on first use. The file is written whole to a temporary file
// then renamed (never half-written), with mode 0600 in a 0700 directory: it is a credential of the receiver.
export function listenSecret(file: string, baseUrl: string, merchantId: string): { secret: string; created: boolean } {
  const secrets = read(file);
  const key = `${apiKey(baseUrl)} ${merchantId}`;
  const known = secrets[key];
  if (typeof known === 'string' && known.startsWith('whsec_')) return { secret: known, created: false };
  const secret = newWebhookSecret();
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify({ ...secrets, [key]: secret }, null, 2)}\n`, { mode: 0o600 });
  chmodSync(tmp, 0o600); // whatever the umask
  renameSync(tmp, file);
  return { secret, created: true };
}
