import express, { Router } from 'express';
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Deps } from '../deps.ts';
import { UnauthorizedError, ValidationError } from '../platform/errors.ts';
import { acceptPaymentNotifications } from '../charges/settlement.ts';
import type { PaymentNotification } from './acquirer.ts';

export const SIGNATURE_HEADER = 'x-acquirer-signature';

export function signAcquirerBody(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

// API Pix "valor" ("10.50") to centavos without floating point.
function toCents(valor: unknown): number | null {
  if (typeof valor !== 'string' || !/^\d{1,10}\.\d{2}$/.test(valor)) return null;
  return Number(valor.replace('.', ''));
}

function parsePix(body: unknown): PaymentNotification[] {
  const pix = (body as { pix?: unknown })?.pix;
  if (!Array.isArray(pix) || pix.length === 0 || pix.length > 1000) throw new ValidationError([{ field: 'pix', message: 'pix deve ser uma lista de 1 a 1000 pagamentos' }]);
  return pix.map((p: Record<string, unknown>, i) => {
    const amount = toCents(p?.valor);
    const ok = typeof p?.txid === 'string' && /^[a-zA-Z0-9]{26,35}$/.test(p.txid) && typeof p.endToEndId === 'string'
      && /^[a-zA-Z0-9]{32}$/.test(p.endToEndId) && amount !== null && typeof p.horario === 'string' && !Number.isNaN(Date.parse(p.horario));
    if (!ok) throw new ValidationError([{ field: `pix[${i}]`, message: 'pagamento inválido: txid, endToEndId, valor e horario são obrigatórios' }]);
    return { txid: p.txid as string, endToEndId: p.endToEndId as string, amount: amount!, paidAt: new Date(p.horario as string).toISOString() };
  });
}

// POST /v1/acquirer/notifications: the acquirer's payment webhook (API Pix `pix` array), authenticated by an
// HMAC-SHA256 of the raw body. It only enqueues; the worker settles.
export function acquirerNotificationRoutes({ config, boss }: Deps): Router {
  const router = Router();
  router.post('/', express.raw({ type: () => true, limit: '1mb' }), async (req, res) => {
    const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    const given = Buffer.from(req.header(SIGNATURE_HEADER) ?? '');
    const expected = Buffer.from(signAcquirerBody(config.acquirerWebhookSecret, raw.toString('utf8')));
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw new UnauthorizedError('Assinatura do adquirente inválida');
    let body: unknown;
    try { body = JSON.parse(raw.toString('utf8')); } catch { throw new ValidationError([], 'JSON malformado no corpo da requisição'); }
    const notifications = parsePix(body);
    await acceptPaymentNotifications(boss, notifications);
    res.json({ received: notifications.length });
  });
  return router;
}
