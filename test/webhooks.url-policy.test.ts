// Where webhooks may be delivered in production: the URL forms a merchant (or an attacker) can write, the addresses a
// DNS answer can hold, and the sender's own check at delivery time.
import test from 'ava';
import type { LookupAddress } from 'node:dns';
import {
  canonicalWebhookUrl,
  isPublicAddress,
  publicOnlyLookup,
  URL_MESSAGES,
  webhookUrlProblem,
} from '../src/webhooks/url-policy.ts';
import { createSender } from '../src/webhooks/sender.ts';
import { startReceiver } from './support/receiver.ts';

// Every one of these names a loopback, private, reserved or transition address, however it is written.
const NOT_PUBLIC_LITERALS = [
  // IPv4, in every notation WHATWG URL (and inet_aton) reads
  'https://127.0.0.1/',
  'https://127.1/',
  'https://0x7f.0.0.1/',
  'https://0x7f000001/',
  'https://0177.0.0.1/',
  'https://017700000001/',
  'https://2130706433/',
  'https://127.0.0.1./',
  'https://127.0.0.1:443/',
  'https://0/',
  'https://0.0.0.0/',
  'https://012.0.0.1/', // octal: 10.0.0.1
  'https://10.1.2.3/',
  'https://172.16.0.1/',
  'https://192.168.0.10/',
  'https://169.254.169.254/latest/meta-data',
  'https://100.64.0.1/',
  'https://192.0.0.1/',
  'https://192.0.2.1/',
  'https://198.18.0.1/',
  'https://224.0.0.1/',
  'https://240.0.0.1/',
  'https://255.255.255.255/',
  // IPv6
  'https://[::]/',
  'https://[::1]/',
  'https://[0:0:0:0:0:0:0:1]/',
  'https://[::127.0.0.1]/', // IPv4-compatible ::/96
  'https://[::7f00:1]/',
  'https://[::a00:1]/',
  'https://[::8.8.8.8]/', // ::/96 is deprecated whatever it carries
  'https://[::ffff:127.0.0.1]/', // IPv4-mapped
  'https://[::ffff:7f00:1]/',
  'https://[::ffff:10.0.0.1]/',
  'https://[::ffff:8.8.8.8]/',
  'https://[::ffff:0:7f00:1]/', // IPv4-translated (RFC 6145)
  'https://[64:ff9b::127.0.0.1]/', // NAT64 (RFC 6052)
  'https://[64:ff9b::a00:1]/',
  'https://[64:ff9b:1::a00:1]/', // local-use NAT64 (RFC 8215)
  'https://[2002:7f00:1::]/', // 6to4 of 127.0.0.1
  'https://[2002:a00:1::1]/',
  'https://[2001::1]/', // Teredo
  'https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/',
  'https://[2001:db8::1]/',
  'https://[2001:10::1]/',
  'https://[100::1]/',
  'https://[fe80::1]/',
  'https://[fec0::1]/', // site-local (deprecated)
  'https://[fc00::1]/',
  'https://[fd00::1]/',
  'https://[ff02::1]/',
];

test('production: every non-public address is refused, in every notation', async (t) => {
  for (const url of NOT_PUBLIC_LITERALS) t.is(await webhookUrlProblem(url, true), URL_MESSAGES.privateAddress, url);
  for (const url of ['https://localhost/', 'https://LOCALHOST/x', 'https://localhost./']) {
    const problem = await webhookUrlProblem(url, true);
    t.true(problem === URL_MESSAGES.privateAddress || problem === URL_MESSAGES.unresolvable, `${url}: ${problem}`);
  }
  for (const url of [
    'https://93.184.216.34/hook',
    'https://93.184.216.34./hook',
    'https://1572395042/hook', // 93.184.216.34 as one number
    'https://[2606:4700:4700::1111]/hook',
  ])
    t.is(await webhookUrlProblem(url, true), null, url);
});

test('the addresses a DNS answer may hold: only global unicast is public', (t) => {
  for (const a of ['8.8.8.8', '93.184.216.34', '2606:4700:4700::1111', '2a00:1450:4001:80b::200e'])
    t.true(isPublicAddress(a), a);
  for (const a of [
    '127.0.0.1',
    '::7f00:1',
    '::8.8.8.8',
    '::ffff:8.8.8.8',
    '::ffff:127.0.0.1',
    '64:ff9b::808:808',
    '64:ff9b:1::808:808',
    '2002:808:808::1',
    '2001::1',
    'fec0::1',
    'fe80::1%eth0',
    '::',
    '0.0.0.0',
    'not an address',
  ])
    t.false(isPublicAddress(a), a);
});

test('URLs are stored in their WHATWG form; userinfo is refused everywhere', async (t) => {
  t.is(canonicalWebhookUrl('HTTPS://Example.COM:443/a/../x?b=1#frag'), 'https://example.com/x?b=1');
  t.is(canonicalWebhookUrl('https://bücher.example/hook'), 'https://xn--bcher-kva.example/hook');
  t.is(canonicalWebhookUrl('http://127.0.0.1:80'), 'http://127.0.0.1/');
  t.is(canonicalWebhookUrl('https://0x7f.1:8443/'), 'https://127.0.0.1:8443/');
  t.is(canonicalWebhookUrl('ftp://example.com/'), null);
  for (const production of [false, true])
    for (const url of ['https://user:pass@example.com/', 'https://user@example.com/', 'https://:pass@example.com/'])
      t.is(await webhookUrlProblem(url, production), URL_MESSAGES.credentials, url);
  t.is(await webhookUrlProblem('https://@127.0.0.1/', false), null, 'an empty userinfo is no userinfo');
});

test('delivery in production: an https URL in any case is sent, and non-public literals are refused before connecting', async (t) => {
  const r = await startReceiver();
  t.teardown(() => r.close());
  const sender = createSender({ production: true, timeoutMs: 2000 });
  t.teardown(() => sender.close());
  const refused = 'Destino recusado: o host resolve para um endereço privado, de loopback ou link-local';
  // stored before normalisation: recognised as https (then refused only for being loopback)
  t.like(await sender.post(`HTTPS://127.0.0.1:${r.port}/hook`, {}, '{}'), { statusCode: null, response: refused });
  for (const host of ['[::7f00:1]', '[::ffff:7f00:1]', '[::ffff:0:7f00:1]', '[64:ff9b::7f00:1]', '[2002:7f00:1::1]'])
    t.like(await sender.post(`https://${host}:${r.port}/hook`, {}, '{}'), { response: refused }, host);
  t.is(r.requests.length, 0);
});

test('delivery in production: a host name is refused when its DNS answer holds any non-public address', async (t) => {
  const r = await startReceiver();
  t.teardown(() => r.close());
  const answers: Record<string, LookupAddress[]> = {
    'compat.test': [{ address: '::7f00:1', family: 6 }],
    'mapped.test': [{ address: '::ffff:127.0.0.1', family: 6 }],
    'nat64.test': [{ address: '64:ff9b::7f00:1', family: 6 }],
    'mixed.test': [
      { address: '93.184.216.34', family: 4 },
      { address: '127.0.0.1', family: 4 },
    ],
  };
  // a resolver with fixed answers (no real DNS can be steered from a test); the connection itself is real
  type Callback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;
  const resolve = (host: string, options: object, cb: Callback) => {
    const list = answers[host] ?? [];
    if ((options as { all?: boolean }).all) cb(null, list);
    else cb(null, list[0].address, list[0].family);
  };
  const sender = createSender({ production: true, timeoutMs: 2000, resolve });
  t.teardown(() => sender.close());
  for (const host of Object.keys(answers))
    t.like(
      await sender.post(`https://${host}:${r.port}/hook`, {}, '{}'),
      {
        statusCode: null,
        response: 'Destino recusado: o host resolve para um endereço privado, de loopback ou link-local',
      },
      host,
    );
  t.is(r.requests.length, 0);

  // a public answer passes through untouched (not connected to: only loopback is reachable from tests)
  const lookup = publicOnlyLookup(resolve);
  answers['public.test'] = [{ address: '2606:4700:4700::1111', family: 6 }];
  const got = await new Promise<unknown>((ok, fail) =>
    lookup('public.test', { all: true }, (err, address) => (err ? fail(err) : ok(address))),
  );
  t.deepEqual(got, answers['public.test']);
});
