import { randomBytes } from 'node:crypto';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import type { PixEvent } from './events.ts';

export { WebhookVerificationError };

// Node's IncomingHttpHeaders (req.headers), a fetch Headers, or a plain object.
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

export type VerifyWebhookInput = {
  // The webhook's secret as the API gave it (`wh_…`), the one `pix-payments listen` printed (`whsec_…`), or its
  // base64 key alone. Several: valid when any verifies (keep the old one while a rotation overlaps).
  secret: string | readonly string[];
  headers: WebhookHeaders;
  // The raw body exactly as received: a re-serialised object would not match the signature.
  body: string | Uint8Array;
};

// The Standard Webhooks key of a secret in any of the forms above.
function keyOf(secret: string): Webhook {
  return new Webhook(secret.startsWith('wh_') ? secret.slice(3) : secret);
}

function headerRecord(headers: WebhookHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  const entries = headers instanceof Headers ? headers.entries() : Object.entries(headers);
  for (const [name, value] of entries) {
    const v = Array.isArray(value) ? value[0] : value;
    if (typeof v === 'string') out[name.toLowerCase()] = v;
  }
  return out;
}

// Checks the signature (any of the space-separated `v1,…` in `webhook-signature`, as sent while a secret rotation
// overlaps) and the timestamp (within 5 minutes), then returns the event. Throws WebhookVerificationError otherwise.
export function verifyWebhook({ secret, headers, body }: VerifyWebhookInput): PixEvent {
  const payload = typeof body === 'string' ? body : Buffer.from(body);
  const record = headerRecord(headers);
  const secrets = typeof secret === 'string' ? [secret] : secret;
  if (!secrets.length) throw new TypeError('verifyWebhook: no secret given');
  let failure: unknown;
  for (const s of secrets) {
    try {
      return keyOf(s).verify(payload, record) as PixEvent;
    } catch (err) {
      failure = err;
    }
  }
  throw failure;
}

// A new secret in the Standard Webhooks form (`whsec_` + 32 random bytes in base64), as `listen` prints.
export const newWebhookSecret = (): string => `whsec_${randomBytes(32).toString('base64')}`;

// The three Standard Webhooks headers for `body`, signed now with `secret`.
export function signWebhook(secret: string, id: string, body: string, now = new Date()): Record<string, string> {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
    'webhook-signature': keyOf(secret).sign(id, now, body),
  };
}
