import { lookup } from 'node:dns/promises';
import ipaddr from 'ipaddr.js';

export const URL_MESSAGES = {
  required: 'url é obrigatória',
  invalid: 'url deve ser uma URL http(s) válida com no máximo 2048 caracteres',
  httpsOnly: 'url deve usar HTTPS',
  unresolvable: 'url: não foi possível resolver o host',
  privateAddress: 'url não pode apontar para um endereço privado, de loopback ou link-local',
} as const;

// Only ordinary public unicast addresses receive webhooks in production; ipaddr.js names every other range
// (private, loopback, linkLocal, uniqueLocal, carrierGradeNat, ipv4Mapped, reserved...).
export const isPublicAddress = (address: string): boolean => ipaddr.parse(address).range() === 'unicast';

export function parseWebhookUrl(raw: unknown): URL | null {
  if (typeof raw !== 'string' || raw.length > 2048) return null;
  try {
    const url = new URL(raw);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname ? url : null;
  } catch {
    return null;
  }
}

// The creation/update check (contract): in production HTTPS only, and every address the host resolves to must be
// public.
// Delivery repeats the address check after its own DNS resolution (see sender.ts), so a later DNS change cannot bypass
// it.
export async function webhookUrlProblem(raw: unknown, production: boolean): Promise<string | null> {
  const url = parseWebhookUrl(raw);
  if (!url) return URL_MESSAGES.invalid;
  if (!production) return null; // plain http and localhost are allowed outside production
  if (url.protocol !== 'https:') return URL_MESSAGES.httpsOnly;
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  let addresses: string[];
  try {
    addresses = ipaddr.isValid(host)
      ? [host]
      : (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);
  } catch {
    return URL_MESSAGES.unresolvable;
  }
  if (addresses.length === 0) return URL_MESSAGES.unresolvable;
  return addresses.every(isPublicAddress) ? null : URL_MESSAGES.privateAddress;
}
