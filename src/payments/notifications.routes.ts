// The acquirer's payment notifications (webhooks), checked and accepted for settlement.
import express, { Router } from 'express';
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { hmacKey } from '../platform/hmac-key.ts';
import type { Services } from '../platform/services.ts';
import type { PaymentComponents, PaymentNotification } from '../acquirer/acquirer.ts';
import { UnauthorizedError, ValidationError } from '../platform/errors.ts';
import { enqueue, QUEUES } from '../platform/queue.ts';
import { pixTime } from '../pix/time.ts';
import { acceptPayments } from './payments.service.ts';

export const SIGNATURE_HEADER = 'x-acquirer-signature';

export function signAcquirerBody(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', hmacKey(secret)).update(body).digest('hex')}`;
}

const E2EID = /^[a-zA-Z0-9]{32}$/;
const TXID = /^[a-zA-Z0-9]{26,35}$/;

// Anything JSON may hold (null, numbers, arrays...) is looked at only through this: a field of a non-object is absent.
type Item = Record<string, unknown>;
const asItem = (v: unknown): Item => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Item) : {});

// API Pix "valor" ("10.50", up to the standard's 9 999 999 999.99) to centavos without floating point; null when it is
// not one. Any such amount settles: one no charge can match is recorded as unmatched and returned.
function toCents(valor: unknown): number | null {
  if (typeof valor !== 'string' || !/^\d{1,10}\.\d{2}$/.test(valor)) return null;
  const cents = Number(valor.replace('.', ''));
  return cents >= 1 ? cents : null;
}

// API Pix `componentesValor` (what the payer's PSP says the amount is made of) in centavos, absent parts 0: undefined
// when absent or without `original` (not a charge's payment), null when malformed.
const PARTS = { original: 'original', abatimento: 'rebate', desconto: 'discount', multa: 'fine', juros: 'interest' };
function toComponents(v: unknown): PaymentComponents | undefined | null {
  if (v === undefined || v === null) return undefined;
  if (asItem(v) !== v) return null;
  const parts = asItem(v);
  if (parts.original === undefined) return undefined;
  const out: Record<string, number> = {};
  for (const [wire, part] of Object.entries(PARTS)) {
    const valor = parts[wire] === undefined ? '0.00' : asItem(parts[wire]).valor;
    const cents = typeof valor === 'string' && valor === '0.00' ? 0 : toCents(valor);
    if (cents === null) return null;
    out[part] = cents;
  }
  return out as PaymentComponents;
}

// RFC 3339 (the API Pix `horario`) from 2000 to 9999, so every accepted time is one PostgreSQL stores as it was meant.
function toIso(horario: unknown): string | null {
  const at = pixTime(horario);
  return at === null ? null : new Date(at).toISOString();
}

// The `pix` array of a notification body (any JSON value): 1..1000 items, or 400.
function pixItems(body: unknown): unknown[] {
  const pix = asItem(body).pix;
  if (!Array.isArray(pix) || pix.length === 0 || pix.length > 1000)
    throw new ValidationError([{ field: 'pix', message: 'pix deve ser uma lista de 1 a 1000 pagamentos' }]);
  return pix;
}

function parsePix(body: unknown): PaymentNotification[] {
  return pixItems(body).map((item, i) => {
    const p = asItem(item);
    const txid = p.txid ?? null; // API Pix: absent (or null) for a Pix paid without a txid
    const amount = toCents(p.valor);
    const paidAt = toIso(p.horario);
    const components = toComponents(p.componentesValor);
    const ok =
      (txid === null || (typeof txid === 'string' && TXID.test(txid))) &&
      typeof p.endToEndId === 'string' &&
      E2EID.test(p.endToEndId) &&
      amount !== null &&
      paidAt !== null &&
      components !== null;
    if (!ok)
      throw new ValidationError([
        { field: `pix[${i}]`, message: 'pagamento inválido: endToEndId, valor e horario são obrigatórios' },
      ]);
    return {
      txid: txid as string | null,
      endToEndId: p.endToEndId as string,
      amount: amount!,
      paidAt: paidAt!,
      ...(components ? { components } : {}),
    };
  });
}

// POST /v1/acquirer/notifications: the acquirer's payment webhook (API Pix `pix` array), authenticated by an
// HMAC-SHA256 of the raw body. It only enqueues; the worker settles.
export function acquirerNotificationRoutes({ config, boss }: Pick<Services, 'config' | 'boss'>): Router {
  const router = Router();
  router.post('/', express.raw({ type: () => true, limit: '1mb' }), async (req, res) => {
    const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    const given = Buffer.from(req.header(SIGNATURE_HEADER) ?? '');
    const expected = Buffer.from(signAcquirerBody(config.acquirerWebhookSecret, raw.toString('utf8')));
    if (given.length !== expected.length || !timingSafeEqual(given, expected))
      throw new UnauthorizedError('Assinatura do adquirente inválida');
    let body: unknown;
    try {
      body = JSON.parse(raw.toString('utf8'));
    } catch {
      throw new ValidationError([], 'JSON malformado no corpo da requisição', 'malformed_json');
    }
    const notifications = parsePix(body);
    await acceptPayments({ boss }, notifications);
    res.json({ received: notifications.length });
  });
  return router;
}

const sha256 = (s: string) => createHash('sha256').update(s).digest();
// Our refund ids are UUIDs; at the acquirer they go without dashes (API Pix ids are alphanumeric).
const refundIdOf = (pspId: string) =>
  /^[0-9a-f]{32}$/.test(pspId)
    ? `${pspId.slice(0, 8)}-${pspId.slice(8, 12)}-${pspId.slice(12, 16)}-${pspId.slice(16, 20)}-${pspId.slice(20)}`
    : null;

/**
 * POST /v1/acquirer/apipix/:token and .../:token/pix (ACQUIRER=apipix): the PSP's webhook, registered with
 * `npm run ops -- acquirer:webhook`. The token (APIPIX_WEBHOOK_TOKEN) is compared in constant time; a wrong one is 401
 * and changes nothing. Nothing in the body is trusted: each Pix is re-read from the PSP by the worker before it settles
 * anything, and each devolução it lists is asked about again.
 */
export function apiPixNotificationRoutes({ config, boss }: Pick<Services, 'config' | 'boss'>): Router {
  const router = Router();
  const token = sha256(config.apipix!.webhookToken);
  router.post(['/:token', '/:token/pix'], express.json({ limit: '1mb' }), async (req, res) => {
    if (!timingSafeEqual(sha256(String(req.params.token)), token))
      throw new UnauthorizedError('Token do webhook inválido');
    const items = pixItems(req.body).map(asItem);
    const bad = items.findIndex((p) => typeof p.endToEndId !== 'string' || !E2EID.test(p.endToEndId));
    if (bad >= 0) throw new ValidationError([{ field: `pix[${bad}].endToEndId`, message: 'endToEndId inválido' }]);
    // hints only (the worker asks the PSP): what was notified, so the logs can tell what the PSP then confirmed
    const payments = items.map((p) => ({
      txid: typeof p.txid === 'string' && TXID.test(p.txid) ? p.txid : null,
      endToEndId: p.endToEndId as string,
      amount: toCents(p.valor) ?? 0,
      paidAt: toIso(p.horario) ?? new Date().toISOString(),
    }));
    await acceptPayments({ boss }, payments);
    const refunds = items
      .flatMap((p) => (Array.isArray(p.devolucoes) ? p.devolucoes.map(asItem) : []))
      .map((d) => (typeof d.id === 'string' ? refundIdOf(d.id) : null))
      .filter((id): id is string => id !== null);
    for (const refundId of refunds)
      await enqueue(boss, null, QUEUES.refundSend, { refundId }, { singletonKey: refundId });
    res.json({ received: payments.length, refunds: refunds.length });
  });
  return router;
}
