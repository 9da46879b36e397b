#!/usr/bin/env node
// pix-payments: `listen` forwards your events to a local URL, signed; `trigger` makes the sandbox produce one.
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { parseArgs } from 'node:util';
import { createPixClient } from './client.ts';
import { EVENT_NAMES, isEventName, type EventName } from './events.ts';
import { listen } from './listen.ts';
import { listenSecret, secretsFile } from './listen-secrets.ts';
import { RECIPES, trigger } from './trigger.ts';

const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
  version: string;
};

const USAGE = `pix-payments ${version}

Usage:
  pix-payments listen --forward-to <url> [--events a,b] [--secret whsec_...]
      Forwards your events (GET /v1/events/stream) to <url> as they happen, signed as webhooks are
      (Standard Webhooks) with the secret it prints at start (or --secret). Resumes after a dropped connection.
      The secret is made once per API and merchant and kept in
      $XDG_CONFIG_HOME/pix-payments/listen-secrets.json (~/.config/... by default; mode 0600).
  pix-payments listen --print-secret
      Prints that secret and exits: export PIX_WEBHOOK_SECRET=$(npx pix-payments listen --print-secret)
  pix-payments trigger <event>
      Makes the sandbox produce <event>:
${EVENT_NAMES.map((e) => `        ${e.padEnd(32)} ${RECIPES[e].does}`).join('\n')}

Credentials and options:
  PIX_TOKEN=<jwt or lk_ key>   the credential (--token <...> works too, but shows in \`ps\`)
  --base-url <url>             or PIX_BASE_URL (default http://localhost:3000): https, or http to this machine only
  --help, --version`;

class UsageError extends Error {}

// Plain http carries the credential in clear: only to this machine (localhost, 127.0.0.0/8, ::1), where it never
// crosses a network. Anything else must be https.
function checkBaseUrl(value: string): void {
  if (!URL.canParse(value)) throw new UsageError(`--base-url is not a URL: ${value}`);
  const { protocol, hostname } = new URL(value); // lower-cased, IPv4 in dotted decimal (127.1 is 127.0.0.1)
  if (protocol === 'https:') return;
  const host = hostname.replace(/^\[(.*)\]$/, '$1');
  const loopback = host === 'localhost' || host === '::1' || (isIP(host) === 4 && host.startsWith('127.'));
  if (protocol === 'http:' && loopback) return;
  throw new UsageError(
    `refuses to send your credential to ${value} in clear: use https (plain http only to localhost, 127.0.0.0/8 or [::1])`,
  );
}

function eventList(value: string | undefined): EventName[] {
  const names = (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = names.filter((n) => !isEventName(n));
  if (unknown.length) throw new UsageError(`unknown event(s): ${unknown.join(', ')}; known: ${EVENT_NAMES.join(', ')}`);
  return names as EventName[];
}

// The merchant's listen secret at this API, kept across runs (listen-secrets.ts).
async function savedSecret(baseUrl: string, token: string, env: NodeJS.ProcessEnv): Promise<string> {
  const client = createPixClient({ baseUrl, token, headers: { 'user-agent': `pix-payments-cli/${version}` } });
  const { data, error, response } = await client.GET('/v1/merchants/me');
  if (!data)
    throw new Error(`HTTP ${response.status} ${(error as { message?: string }).message ?? response.statusText}`);
  return listenSecret(secretsFile(env), baseUrl, data.merchant.id).secret;
}

// \`npx pix-payments listen\` runs this process under \`sh -c\`, under npm: \`kill <npx's pid>\` ends those two, and the
// shell passes no signal on. So, as a child should, it stops once the process that started it is gone (reparented).
function endWithParent(stop: AbortController): void {
  const parent = process.ppid;
  const watch = setInterval(() => {
    if (process.ppid !== parent) stop.abort();
  }, 250);
  watch.unref();
  stop.signal.addEventListener('abort', () => clearInterval(watch), { once: true });
}

async function main(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      token: { type: 'string' },
      'base-url': { type: 'string' },
      'forward-to': { type: 'string' },
      events: { type: 'string' },
      secret: { type: 'string' },
      'print-secret': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
      version: { type: 'boolean', short: 'v' },
    },
  });
  if (values.version) return (console.log(version), 0);
  const [command, ...rest] = positionals;
  if (values.help || !command) return (console.log(USAGE), values.help ? 0 : 2);
  const token = values.token ?? env.PIX_TOKEN;
  const baseUrl = values['base-url'] ?? env.PIX_BASE_URL ?? 'http://localhost:3000';
  if (!token) throw new UsageError('no credential: set PIX_TOKEN (a JWT or an lk_ API key)');
  checkBaseUrl(baseUrl);
  // as `docker login --password` does: still accepted, but every user of the machine can read a command line
  if (values.token !== undefined)
    console.error('pix-payments: warning: --token shows in `ps` to every user of this machine; set PIX_TOKEN instead');

  if (command === 'listen') {
    const forwardTo = values['forward-to'];
    const printOnly = values['print-secret'];
    if (!printOnly && (!forwardTo || !URL.canParse(forwardTo))) throw new UsageError('listen needs --forward-to <url>');
    const secret = values.secret ?? (await savedSecret(baseUrl, token, env));
    if (printOnly) return (console.log(secret), 0);
    const stop = new AbortController();
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.once(signal, () => stop.abort());
    endWithParent(stop);
    await listen({
      baseUrl,
      token,
      forwardTo: forwardTo!,
      events: eventList(values.events),
      secret,
      userAgent: `pix-payments-cli/${version}`,
      signal: stop.signal,
    });
    return 0;
  }
  if (command === 'trigger') {
    const [event] = rest;
    if (!event || !isEventName(event)) throw new UsageError(`trigger needs one of: ${EVENT_NAMES.join(', ')}`);
    const client = createPixClient({ baseUrl, token, headers: { 'user-agent': `pix-payments-cli/${version}` } });
    const { eventId } = await trigger(client, event, { log: (line) => console.log(line) });
    console.log(`Triggered ${event}: event ${eventId}`);
    return 0;
  }
  throw new UsageError(`unknown command: ${command}`);
}

main(process.argv.slice(2), process.env).then(
  (code) => (process.exitCode = code),
  (err: unknown) => {
    if (err instanceof UsageError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      console.error(`pix-payments: ${(err as Error).message}\n\n${USAGE}`);
      process.exitCode = 2;
    } else {
      // the API's refusal, or the network's (fetch failed: its cause says why, e.g. ECONNREFUSED)
      const { message, cause } = err as Error;
      const why = cause instanceof Error ? `: ${cause.message}` : '';
      console.error(`pix-payments: ${message}${why}`);
      if (process.env.DEBUG) console.error(err);
      process.exitCode = 1;
    }
  },
);
