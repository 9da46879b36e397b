import { Router } from 'express';
import { body } from 'express-validator';
import type { Services } from '../platform/services.ts';
import { merchantIdOf, requireJwt } from '../auth/authenticate.ts';
import { validate } from '../platform/validation.ts';
import { calendarDateProblem, dateChecks } from '../platform/dates.ts';
import { simulatePayment } from './payments.service.ts';
import { onboardSandboxMerchant } from './sandbox.onboarding.ts';

const payRules = [
  dateChecks(
    body('date').optional({ values: 'null' }),
    'date',
    calendarDateProblem,
    'date deve ser uma data no formato AAAA-MM-DD (o dia do pagamento, America/Sao_Paulo)',
  ),
];

// /v1/sandbox (only with ACQUIRER=sandbox): simulate what a payer would do.
export function sandboxRoutes(deps: Pick<Services, 'boss' | 'clock' | 'config'>): Router {
  const router = Router();
  // The payer pays (on `date`, default today): the same notification a real acquirer sends, through the same queue;
  // PAID arrives asynchronously.
  router.post('/charges/:id/pay', ...validate(payRules), async (req, res) => {
    const date = (req.body as { date?: string | null } | undefined)?.date ?? undefined;
    const paid = await simulatePayment(deps, req.em, merchantIdOf(req), String(req.params.id), date);
    res.status(202).json({ message: 'Pagamento simulado enviado; a cobrança ficará PAID em instantes', ...paid });
  });
  // The merchant readies its own account (KYC, receiving account, a random PIX key): JWT only, as a person in the
  // portal would; idempotent.
  router.post('/onboarding', requireJwt, async (req, res) => {
    res.json({ merchant: await onboardSandboxMerchant(deps, req.em, merchantIdOf(req)) });
  });
  return router;
}
