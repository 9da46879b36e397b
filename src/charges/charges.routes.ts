// /v1/charges: create, read, list and cancel charges; the charge's Pix location.
import { Router } from 'express';
import { matchedData } from 'express-validator';
import type { AcquirerDeps } from '../acquirer/acquirer.ts';
import type { Services } from '../platform/services.ts';
import { merchantIdOf } from '../auth/authenticate.ts';
import { singleQuery, validate } from '../platform/validation.ts';
import { createChargeRules, listChargesRules } from './charges.validation.ts';
import { createCharge, type CreateChargeInput } from './charges.create.ts';
import { getCharge, type LatestRefund } from './charges.get.ts';
import { listCharges } from './charges.list.ts';
import { chargeLocation } from './charges.location.ts';
import type { ChargeStatus } from './charge.entity.ts';
import { saoPauloDate } from './due-date.ts';
import { calendarDateProblem, dateChecks } from '../platform/dates.ts';
import { DUE_DATE_FIELDS } from './due-date.validation.ts';

const INPUT_FIELDS = ['amount', 'description', 'expiresIn', 'customer', 'tracking', 'splits', ...DUE_DATE_FIELDS];

// /v1/charges (spec 4.6, 4.7; contract Charges, Charges with a due date). latestRefund: the refund a charge shows
// (src/refunds' latestRefund, given by src/app.ts).
export function chargeRoutes<R>(deps: AcquirerDeps, latestRefund: LatestRefund<R>): Router {
  const router = Router();
  const today = () => saoPauloDate(deps.clock());

  router.post('/', ...validate(createChargeRules(today)), async (req, res) => {
    const b = req.body as Record<string, unknown>; // validated; null optionals are absent
    const input = Object.fromEntries(
      INPUT_FIELDS.filter((k) => b[k] != null).map((k) => [k, b[k]]),
    ) as CreateChargeInput;
    const merchantId = merchantIdOf(req); // 404 Merchant não encontrado for a user without one
    const { charge, replayed } = await createCharge(
      deps,
      req.em,
      { ...req.user!.merchant!, id: merchantId },
      input,
      req.header('x-idempotency-key'),
    );
    if (replayed) res.setHeader('idempotent-replayed', 'true');
    res.status(replayed ? 200 : 201).json({ charge });
  });

  router.get('/', ...validate(listChargesRules), async (req, res) => {
    const q = matchedData(req, { locations: ['query'] }) as { page?: number; limit?: number; status?: ChargeStatus };
    res.json(
      await listCharges(deps, req.em, merchantIdOf(req), {
        page: q.page ?? 1,
        limit: q.limit ?? 20,
        status: q.status,
        today: today(),
      }),
    );
  });

  router.get('/:id', async (req, res) => {
    res.json({ charge: await getCharge(deps, req.em, merchantIdOf(req), req.params.id, today(), latestRefund) });
  });

  return router;
}

// GET /pix/qr/:txid[?date=YYYY-MM-DD]: the payload location a banking app fetches after reading the dynamic QR code
// (served by us in sandbox); `date`: the payment day a due-date charge's amounts are for (default today).
export function pixLocationRoutes({ clock }: Pick<Services, 'clock'>): Router {
  const router = Router();
  const dateRule = dateChecks(
    singleQuery('date'),
    'date',
    calendarDateProblem,
    'date deve ser uma data no formato AAAA-MM-DD',
  );
  router.get('/qr/:txid', ...validate([dateRule]), async (req, res) => {
    res.json(await chargeLocation(req.em, String(req.params.txid), clock(), req.query.date as string | undefined));
  });
  return router;
}
