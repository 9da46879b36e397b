// /v1/charges/:id/refunds: a merchant's refunds of a paid charge.
import { Router, type Request, type Response } from 'express';
import { body, matchedData } from 'express-validator';
import type { Services } from '../platform/services.ts';
import { idempotencyKeyRule, validate } from '../platform/validation.ts';
import { merchantIdOf } from '../auth/authenticate.ts';
import { stripFormatChars } from '../pix/text.ts';
import { listRefunds, requestRefund, type RefundInput } from './refunds.service.ts';

// JSON integers only ("100" or 1.5 are refused, not coerced); beyond what a charge can be is the service's 422.
const isAmount = (v: unknown) => Number.isSafeInteger(v) && (v as number) >= 1;

export const refundRules = [
  idempotencyKeyRule,
  body('amount')
    .optional({ values: 'null' })
    .custom(isAmount)
    .withMessage('amount deve ser um inteiro em centavos, mínimo 1'),
  body('reason')
    .optional({ values: 'null' })
    .isString()
    .withMessage('reason deve ser um texto')
    .bail()
    .customSanitizer(stripFormatChars) // the payer reads it (the devolução's descricao)
    .trim()
    .isLength({ min: 1, max: 140 })
    .withMessage('reason deve ter de 1 a 140 caracteres'),
  body('reverseSplits')
    .optional({ values: 'null' })
    .custom((v) => typeof v === 'boolean')
    .withMessage('reverseSplits deve ser true ou false'),
];

// The refund a request asks for: its validated body (null optionals are absent).
export function inputOf(req: Request): RefundInput {
  const b = matchedData(req, { locations: ['body'] }) as {
    amount?: number | null;
    reason?: string | null;
    reverseSplits?: boolean | null;
  };
  return {
    ...(b.amount != null ? { amount: b.amount } : {}),
    ...(b.reason != null ? { reason: b.reason } : {}),
    ...(b.reverseSplits ? { reverseSplits: true } : {}), // false is the default: the same request as none
  };
}

// /v1/charges/:id/refunds and /v1/charges/:id/refund (contract "Refunds: partial and multiple"), beside the charges.
export function refundRoutes(deps: Pick<Services, 'boss' | 'config'>): Router {
  const router = Router();
  // 202: the refund is final when the acquirer confirms it (charge.refunded); the charge stays PAID until then
  const create = (input: (req: Request) => RefundInput) => async (req: Request, res: Response) => {
    const { replayed, ...created } = await requestRefund(
      deps,
      req.em,
      merchantIdOf(req),
      String(req.params.id),
      input(req),
      req.header('x-idempotency-key'),
    );
    if (replayed) res.setHeader('idempotent-replayed', 'true');
    res.status(replayed ? 200 : 202).json(created);
  };
  router.post('/:id/refunds', ...validate(refundRules), create(inputOf));
  // the first refund route: the same for everything still refundable; no body is read
  router.post(
    '/:id/refund',
    ...validate([idempotencyKeyRule]),
    create(() => ({})),
  );
  router.get('/:id/refunds', async (req, res) => {
    res.json(await listRefunds(req.em, merchantIdOf(req), String(req.params.id)));
  });
  return router;
}
