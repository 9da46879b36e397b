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

// Why a delivery did not verify: a stable `code` to branch on, and the message in Portuguese (as the API's) with the
// library's English text kept after it (callers matching it still do).
export const WEBHOOK_ERRORS = {
  missing_headers: 'Cabeçalhos webhook-id, webhook-timestamp ou webhook-signature ausentes (Missing required headers)',
  invalid_timestamp: 'Cabeçalho webhook-timestamp inválido (Invalid Signature Headers)',
  timestamp_too_old: 'Entrega com mais de 5 minutos (Message timestamp too old)',
  timestamp_too_new: 'Entrega com data no futuro (Message timestamp too new)',
  signature_mismatch: 'Assinatura não confere com o segredo (No matching signature found)',
  invalid_secret: 'Segredo do webhook inválido (Invalid secret)',
} as const;

export type WebhookErrorCode = keyof typeof WEBHOOK_ERRORS;

// The library's own class (catching WebhookVerificationError keeps working), with `code`.
export type PixWebhookVerificationError = WebhookVerificationError & { code: WebhookErrorCode };

const LIBRARY_MESSAGES: Record<string, WebhookErrorCode> = {
  'Missing required headers': 'missing_headers',
  'Invalid Signature Headers': 'invalid_timestamp',
  'Message timestamp too old': 'timestamp_too_old',
  'Message timestamp too new': 'timestamp_too_new',
  'No matching signature found': 'signature_mismatch',
};

// The library's refusal with its `code` and bilingual message; a secret it cannot read (empty, not base64) is the
// receiver's configuration, not the sender's fault: a TypeError (code `invalid_secret`), never taken for a bad delivery.
function verificationError(err: unknown): Error {
  const code = err instanceof WebhookVerificationError ? (LIBRARY_MESSAGES[err.message] ?? 'signature_mismatch') : null;
  if (!code)
    return Object.assign(new TypeError(WEBHOOK_ERRORS.invalid_secret, { cause: err }), { code: 'invalid_secret' });
  return Object.assign(new WebhookVerificationError(WEBHOOK_ERRORS[code]), { code });
}

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
// overlaps) and the timestamp (within 5 minutes), then returns the event. Throws WebhookVerificationError otherwise,
// with a `code` (WEBHOOK_ERRORS; when several secrets fail, the last one's reason), or a TypeError for an unreadable
// secret.
export function verifyWebhook({ secret, headers, body }: VerifyWebhookInput): PixEvent {
  const payload = typeof body === 'string' ? body : Buffer.from(body);
  const record = headerRecord(headers);
  const secrets = typeof secret === 'string' ? [secret] : secret;
  if (!secrets.length) throw new TypeError('verifyWebhook: no secret given');
  const failures: Error[] = [];
  for (const s of secrets) {
    try {
      return keyOf(s).verify(payload, record) as PixEvent;
    } catch (err) {
      failures.push(verificationError(err));
    }
  }
  // an unreadable secret first: it is the one to fix
  throw failures.find((f) => !(f instanceof WebhookVerificationError)) ?? failures.at(-1);
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
