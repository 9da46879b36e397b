// Where a webhook may point: public addresses only, canonical URLs.
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

export const URL_MESSAGES = {
  required: 'url é obrigatória',
  invalid: 'url deve ser uma URL http(s) válida com no máximo 2048 caracteres',
  credentials: 'url não pode conter usuário ou senha',
  httpsOnly: 'url deve usar HTTPS',
  unresolvable: 'url: não foi possível resolver o host',
  privateAddress: 'url não pode apontar para um endereço privado, de loopback ou link-local',
} as const;

const MAX_LENGTH = 2048;
// Global unicast IPv6 (RFC 4291). Outside it: IPv4-compatible ::/96, local-use NAT64 64:ff9b:1::/48, site-local...
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3') as [ipaddr.IPv6, number];

/**
 * Only ordinary public unicast addresses receive webhooks in production. ipaddr.js names every special range (private,
 * loopback, linkLocal, uniqueLocal, carrierGradeNat, reserved; and the transition ranges that carry an IPv4 address:
 * ipv4Mapped, rfc6145, rfc6052 (NAT64), 6to4, teredo), and every one of them is refused, whatever IPv4 address it
 * carries; IPv6 must besides lie in 2000::/3, which leaves out ::/96, 64:ff9b:1::/48 and the rest of the reserved
 * space ipaddr.js calls unicast. IPv4 literals in any form ipaddr.js reads (octal, hex, one number) count as that
 * address.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  const ip = ipaddr.parse(address);
  if (ip.range() !== 'unicast') return false;
  return ip.kind() === 'ipv4' || (ip as ipaddr.IPv6).match(GLOBAL_UNICAST_V6);
}

// The host of a parsed URL when it is an IP literal ("[::1]" -> "::1"; WHATWG has made any IPv4 form dotted decimal).
export function ipLiteral(url: URL): string | null {
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  return isIP(host) ? host : null;
}

// WHATWG URL parsing: scheme and host lower-cased, IDN hosts in punycode, IPv4 in any notation made dotted decimal, the
// default port dropped, the path normalised. The fragment is dropped too: it is never sent.
function parse(raw: unknown): URL | null {
  if (typeof raw !== 'string' || raw.length > MAX_LENGTH) return null;
  try {
    const url = new URL(raw);
    if ((url.protocol !== 'http:' && url.protocol !== 'https:') || !url.hostname) return null;
    url.hash = '';
    return url.href.length <= MAX_LENGTH ? url : null;
  } catch {
    return null;
  }
}

// The URL as it is stored and delivered to (null when it is not a valid one).
export const canonicalWebhookUrl = (raw: unknown): string | null => parse(raw)?.href ?? null;

// The creation/update check (contract): no credentials in the URL (they would be shown in every listing and log); in
// production HTTPS only, and every address the host resolves to must be public.
// Delivery repeats the address check after its own DNS resolution (see sender.ts), so a later DNS change cannot bypass
// it.
export async function webhookUrlProblem(raw: unknown, production: boolean): Promise<string | null> {
  const url = parse(raw);
  if (!url) return URL_MESSAGES.invalid;
  if (url.username || url.password) return URL_MESSAGES.credentials;
  if (!production) return null; // plain http and localhost are allowed outside production
  if (url.protocol !== 'https:') return URL_MESSAGES.httpsOnly;
  const literal = ipLiteral(url);
  let addresses: string[];
  try {
    addresses = literal ? [literal] : (await lookup(url.hostname, { all: true, verbatim: true })).map((a) => a.address);
  } catch {
    return URL_MESSAGES.unresolvable;
  }
  if (addresses.length === 0) return URL_MESSAGES.unresolvable;
  return addresses.every(isPublicAddress) ? null : URL_MESSAGES.privateAddress;
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;
type Lookup = (hostname: string, options: object, callback: LookupCallback) => void;

export const NOT_PUBLIC = 'ERR_WEBHOOK_ADDRESS_NOT_PUBLIC';

/**
 * net.connect's `lookup` for deliveries in production: resolves like dns.lookup (or `resolve`), then refuses the
 * connection when any address is not public. It runs at every connection, so the check follows the DNS.
 */
export function publicOnlyLookup(resolve: Lookup = dnsLookup as unknown as Lookup): Lookup {
  return (hostname, options, callback) =>
    resolve(hostname, options, (err, address, family) => {
      if (err) return callback(err, address, family);
      const list = Array.isArray(address) ? address : [{ address, family: family ?? 0 }];
      const bad = list.find((a) => !isPublicAddress(a.address));
      if (!bad) return callback(null, address, family);
      const refused: NodeJS.ErrnoException = new Error(`${hostname} resolves to ${bad.address}, which is not public`);
      refused.code = NOT_PUBLIC;
      callback(refused, Array.isArray(address) ? [] : '', family);
    });
}
