import { createHash, randomInt } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { AcquirerDeps } from '../acquirer/acquirer.ts';
import type { Services } from '../platform/services.ts';
import type { MerchantSnapshot } from '../auth/principal.ts';
import { BusinessRuleError, ConflictError, ForbiddenError, NotFoundError } from '../platform/errors.ts';
import { isUuid, newId } from '../platform/base.entity.ts';
import { createOnce } from '../platform/idempotency.ts';
import { countedPage } from '../platform/counters.ts';
import { transactional } from '../platform/transaction.ts';
import { enqueue, QUEUES } from '../platform/queue.ts';
import { createCharge, PREREQUISITE_MESSAGES } from '../charges/charges.service.ts';
import type { AutoCharge, MandateStatus, PayerAccount } from './mandate.entity.ts';
import * as sql from './mandates.sql.ts';
import { mandateView, recLocationView } from './mandates.view.ts';
import { cancelMandate, MANDATE_NOT_FOUND } from './mandates.states.ts';
import { DEFAULT_LEAD_DAYS, DEFAULT_MANDATE_EXPIRES_IN } from './mandates.validation.ts';

export type CreateMandateInput = {
  journey: sql.MandateRow['journey'];
  customer: { name: string; document: string };
  contract: string;
  object: string;
  frequency: sql.MandateRow['frequency'];
  startDate: string;
  endDate?: string;
  amount?: number;
  minAmount?: number;
  retryPolicy?: sql.MandateRow['retry_policy'];
  expiresIn?: number;
  payerAccount?: PayerAccount;
  firstPayment?: { amount: number };
  chargeId?: string;
  autoCharge?: { amount?: number | null; leadDays?: number | null };
};

export const CNPJ_ONLY = 'Pix Automático disponível apenas para recebedores com CNPJ';
export const DUE_DATE_CHARGE_UNFIT =
  'chargeId deve ser uma cobrança com vencimento PENDING deste recebedor, do mesmo pagador (customer.document) e sem outra autorização ativa';
// the first payment's charge lives at most as long as a charge may (its own limit), within the approval's time
const MAX_CHARGE_EXPIRES_IN = 604_800;

// 403: a CPF merchant; otherwise every missing charge prerequisite, named as charges name them.
async function checkMerchant(em: EntityManager, merchantId: string): Promise<void> {
  const [m] = await em.execute<sql.MerchantForMandate[]>(sql.MERCHANT_FOR_MANDATE, [merchantId]);
  if (m.document.length !== 14) throw new ForbiddenError(CNPJ_ONLY);
  const missing = [
    m.kyc_status !== 'APPROVED' && PREREQUISITE_MESSAGES.kyc,
    !m.acquirer_account_id && PREREQUISITE_MESSAGES.acquirer,
    !m.has_pix_key && PREREQUISITE_MESSAGES.pixKey,
  ].filter(Boolean);
  if (missing.length) throw new ForbiddenError(missing.join('; '));
}

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const alnum = (n: number) => Array.from({ length: n }, () => ALNUM[randomInt(ALNUM.length)]).join('');
// A PUSH request's id (API Pix idSolicRec): SC, the recId's ISPB and date, 11 characters.
const requestIdFor = (recId: string) => `SC${recId.slice(2, 18)}${alnum(11)}`;

// The charge the approval pays: QR_WITH_PAYMENT's created now (through the charges' own creation, under a key derived
// from the mandate's, so a retried request reuses it), DUE_DATE_QR's the one given (422 when it does not fit).
async function chargeOfJourney(
  deps: Pick<AcquirerDeps, 'acquirer' | 'config' | 'boss' | 'clock'>,
  em: EntityManager,
  merchant: MerchantSnapshot,
  input: CreateMandateInput,
  expiresIn: number,
  idempotencyKey: string | undefined,
): Promise<{ id: string; txid: string; amount: number | null } | null> {
  if (input.journey === 'DUE_DATE_QR') {
    const [c] = await em.execute<{ id: string; txid: string }[]>(sql.DUE_DATE_CHARGE, [
      input.chargeId,
      merchant.id,
      input.customer.document,
    ]);
    if (!c) throw new BusinessRuleError(DUE_DATE_CHARGE_UNFIT);
    return { id: c.id, txid: c.txid, amount: null }; // its amount is the day's: the payer reads it from its location
  }
  if (input.journey !== 'QR_WITH_PAYMENT') return null;
  const key = idempotencyKey && createHash('sha256').update(`mandate:${idempotencyKey}`).digest('hex');
  const { charge } = await createCharge(
    deps,
    em,
    merchant,
    {
      amount: input.firstPayment!.amount,
      description: input.object,
      expiresIn: Math.min(expiresIn, MAX_CHARGE_EXPIRES_IN),
      customer: input.customer,
    },
    key,
  );
  return { id: charge.id, txid: charge.txid, amount: charge.amount };
}

/**
 * POST /v1/mandates: registers the mandate at the PSP (its recId, and the BR Code of the QR journeys), then inserts it
 * CREATED; a PUSH mandate's request to the payer's PSP is a job committed with it. A PSP that does not answer: 503,
 * nothing stored (a QR_WITH_PAYMENT charge already created is reused by a retry with the same key).
 */
export async function createMandate(
  deps: Pick<AcquirerDeps, 'acquirer' | 'config' | 'boss' | 'clock'>,
  em: EntityManager,
  merchant: MerchantSnapshot,
  input: CreateMandateInput,
  idempotencyKey?: string,
) {
  const { publicBaseUrl } = deps.config;
  const expiresIn = input.expiresIn ?? DEFAULT_MANDATE_EXPIRES_IN;
  const retryPolicy = input.retryPolicy ?? 'NONE';
  const autoCharge: AutoCharge | null = input.autoCharge
    ? {
        amount: input.autoCharge.amount ?? input.amount ?? null,
        leadDays: input.autoCharge.leadDays ?? DEFAULT_LEAD_DAYS,
      }
    : null;
  const request = { ...input, expiresIn, retryPolicy, ...(autoCharge ? { autoCharge } : {}) };
  const { result, replayed } = await createOnce(idempotencyKey, request, {
    async find() {
      const [row] = await em.fork().execute<sql.MandateRow[]>(sql.BY_IDEMPOTENCY_KEY, [merchant.id, idempotencyKey]);
      return row ? { row, requestHash: row.request_hash } : null;
    },
    replay: (prior) => mandateView(prior.row, publicBaseUrl),
    async create(requestHash) {
      await checkMerchant(em, merchant.id);
      const charge = await chargeOfJourney(deps, em, merchant, input, expiresIn, idempotencyKey);
      const id = newId();
      const expiresAt = new Date(deps.clock().getTime() + expiresIn * 1000);
      const created = await deps.acquirer.createMandate(id, {
        journey: input.journey,
        customer: input.customer,
        contract: input.contract,
        object: input.object,
        frequency: input.frequency,
        startDate: input.startDate,
        endDate: input.endDate ?? null,
        amount: input.amount ?? null,
        minAmount: input.minAmount ?? null,
        retries: retryPolicy === 'THREE_IN_SEVEN_DAYS',
        expiresAt: expiresAt.toISOString(),
        merchant: { name: merchant.name, city: merchant.city },
        txid: charge?.txid ?? null,
        amountOfPayment: charge?.amount ?? null,
      });
      const createdAt = deps.clock();
      const requestId = input.journey === 'PUSH' ? requestIdFor(created.recId) : null;
      const row = await transactional(em, async (tx) => {
        const [inserted] = await tx.execute<sql.MandateRow[]>(sql.INSERT_MANDATE, [
          id,
          createdAt,
          createdAt,
          merchant.id,
          created.recId,
          input.journey,
          input.customer.name,
          input.customer.document,
          input.contract,
          input.object,
          input.frequency,
          input.startDate,
          input.endDate ?? null,
          input.amount ?? null,
          input.minAmount ?? null,
          retryPolicy,
          expiresAt,
          created.qrCode,
          created.location,
          charge?.id ?? null,
          input.payerAccount ? JSON.stringify(input.payerAccount) : null,
          requestId ? 'SENT' : null,
          requestId,
          autoCharge ? JSON.stringify(autoCharge) : null,
          JSON.stringify([{ status: 'CREATED', at: createdAt.toISOString() }]),
          idempotencyKey ?? null,
          requestHash,
        ]);
        if (requestId) await enqueue(deps.boss, tx, QUEUES.mandateRequest, { mandateId: id, requestId });
        return inserted;
      });
      return mandateView(row, publicBaseUrl);
    },
  });
  return { mandate: result, replayed };
}

async function ofMerchant(em: EntityManager, merchantId: string, id: string): Promise<sql.MandateRow> {
  const [row] = isUuid(id) ? await em.execute<sql.MandateRow[]>(sql.OF_MERCHANT, [id, merchantId]) : [];
  if (!row) throw new NotFoundError(MANDATE_NOT_FOUND);
  return row;
}

// GET /v1/mandates/:id (another merchant's: 404).
export async function getMandate(deps: Pick<Services, 'config'>, em: EntityManager, merchantId: string, id: string) {
  return mandateView(await ofMerchant(em, merchantId, id), deps.config.publicBaseUrl);
}

// GET /v1/mandates: newest first, of a status and/or a payer. By status (or none) the total comes from the counters;
// by payer it is counted over the (merchant, document) index.
export async function listMandates(
  deps: Pick<Services, 'config'>,
  em: EntityManager,
  merchantId: string,
  q: { page: number; limit: number; status?: MandateStatus; customerDocument?: string },
) {
  const view = (r: sql.MandateRow) => mandateView(r, deps.config.publicBaseUrl);
  if (q.customerDocument === undefined) {
    const { total, rows } = await countedPage<sql.MandateRow>(
      em,
      sql.MANDATE_PAGE,
      { merchant_id: merchantId, status: q.status },
      q.page,
      q.limit,
    );
    return { page: q.page, limit: q.limit, total, mandates: rows.map(view) };
  }
  const of = [merchantId, q.customerDocument, q.status ?? null, q.status ?? null];
  const [{ total }] = await em.execute<{ total: string }[]>(sql.COUNT_OF_CUSTOMER, of);
  const offset = (q.page - 1) * q.limit;
  const rows =
    offset < Number(total) ? await em.execute<sql.MandateRow[]>(sql.PAGE_OF_CUSTOMER, [...of, q.limit, offset]) : [];
  return { page: q.page, limit: q.limit, total: Number(total), mandates: rows.map(view) };
}

export const ONLY_CANCEL = 'Somente o cancelamento é permitido nesta autorização';

// PATCH /v1/mandates/:id: the merchant cancels ({ status: CANCELED, reason? }); any other change 422, and so is a
// mandate already REJECTED, EXPIRED or CANCELED (the loser of two cancels at once included).
export async function patchMandate(
  deps: Pick<Services, 'boss' | 'config' | 'clock'>,
  em: EntityManager,
  merchantId: string,
  id: string,
  body: Record<string, unknown>,
) {
  const m = await ofMerchant(em, merchantId, id);
  if (body.status !== 'CANCELED' || Object.keys(body).some((k) => k !== 'status' && k !== 'reason'))
    throw new BusinessRuleError(ONLY_CANCEL);
  const reason = typeof body.reason === 'string' ? body.reason : null;
  const { mandate, changed } = await cancelMandate(deps, em, { mandateId: m.id, by: 'MERCHANT', reason });
  if (!changed) throw new BusinessRuleError(`Autorização ${mandate.status}: não pode mais ser cancelada`);
  return mandate;
}

export const REQUEST_PENDING = 'Já há uma solicitação enviada ao pagador aguardando resposta';

// POST /v1/mandates/:id/request: a PUSH mandate still CREATED whose last request EXPIRED or was REJECTED sends a new
// one (409 while one is SENT).
export async function requestAgain(
  deps: Pick<Services, 'boss' | 'config'>,
  em: EntityManager,
  merchantId: string,
  id: string,
) {
  const m = await ofMerchant(em, merchantId, id);
  if (m.journey !== 'PUSH')
    throw new BusinessRuleError('Somente autorizações da jornada PUSH têm solicitação ao pagador');
  if (m.status !== 'CREATED') throw new BusinessRuleError(`Autorização ${m.status}: não aceita nova solicitação`);
  if (m.request_status === 'SENT') throw new ConflictError(REQUEST_PENDING);
  if (m.request_status !== 'EXPIRED' && m.request_status !== 'REJECTED')
    throw new BusinessRuleError('Nova solicitação só depois da última EXPIRED ou REJECTED');
  const requestId = requestIdFor(m.rec_id);
  return transactional(em, async (tx) => {
    const [moved] = await tx.execute<sql.MandateRow[]>(sql.NEW_REQUEST, [requestId, m.id]);
    if (!moved) throw new ConflictError(REQUEST_PENDING); // another request (or the payer) got there first
    await enqueue(deps.boss, tx, QUEUES.mandateRequest, { mandateId: m.id, requestId });
    return mandateView(moved, deps.config.publicBaseUrl);
  });
}

// GET /pix/rec/:recId: a QR journey's recurrence as a payload location (sandbox; public, like /pix/qr/:txid).
export async function mandateLocation(em: EntityManager, recId: string) {
  const [r] = await em.execute<sql.RecLocationRow[]>(sql.REC_LOCATION, [recId]);
  if (!r) throw new NotFoundError('Recorrência não encontrada');
  return recLocationView(r);
}
