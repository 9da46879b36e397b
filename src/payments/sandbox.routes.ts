// /v1/sandbox: simulate a payer's payment, and ready a merchant's sandbox account.
import { Router } from 'express';
import { body } from 'express-validator';
import type { Services } from '../platform/services.ts';
import { merchantIdOf, requireJwt } from '../auth/authenticate.ts';
import type { PrincipalCache } from '../auth/principal-cache.ts';
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

// /v1/sandbox (only with ACQUIRER=sandbox): simulate what a payer would do, and ready a merchant's own account.
// `principals`: this process' credential cache, emptied when the onboarding changes what a credential resolves to.
export function sandboxRoutes(deps: Pick<Services, 'boss' | 'clock' | 'config'>, principals?: PrincipalCache): Router {
  const router = Router();
  // The payer pays (on `date`, default today): the same notification a real acquirer sends, through the same queue;
  // PAID arrives asynchronously.
  router.post('/charges/:id/pay', ...validate(payRules), async (req, res) => {
    const date = (req.body as { date?: string | null } | undefined)?.date ?? undefined;
    const paid = await simulatePayment(deps, req.em, merchantIdOf(req), String(req.params.id), date);
    res.status(202).json({ message: 'Pagamento simulado enviado; a cobrança ficará PAID em instantes', ...paid });
  });
  // The merchant readies its own account (KYC, receiving account, a random PIX key): JWT only, as a person in the
  // portal would; idempotent. Its KYC and account are part of its credential: this process forgets what it kept at
  // once (the others on the database's notification), so the next request can charge.
  router.post('/onboarding', requireJwt, async (req, res) => {
    const merchant = await onboardSandboxMerchant(deps, req.em, merchantIdOf(req));
    principals?.forget();
    res.json({ merchant });
  });
  return router;
}
