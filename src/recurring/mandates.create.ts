// POST /v1/mandates (contract: Pix Automático, Mandates): the merchant's checks, each journey's charge, the PSP's
// registration and the insert (with a PUSH mandate's request job).
import { createHash, randomInt } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { AcquirerDeps } from '../acquirer/acquirer.ts';
import type { MerchantSnapshot } from '../auth/principal.ts';
import { BusinessRuleError, ForbiddenError } from '../platform/errors.ts';
import { newId } from '../platform/base.entity.ts';
import { createOnce } from '../platform/idempotency.ts';
import { transactional } from '../platform/transaction.ts';
import { ormSql } from '../platform/sql.ts';
import { enqueue, QUEUES } from '../platform/queue.ts';
import { createCharge, PREREQUISITE_MESSAGES } from '../charges/charges.create.ts';
import type { AutoCharge, PayerAccount } from './mandate.entity.ts';
import * as sql from './mandates.sql.ts';
import { mandateView } from './mandates.view.ts';
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
const PREREQUISITES_CHANGED = 'Pré-requisitos do Pix Automático mudaram; tente novamente';
export const DUE_DATE_CHARGE_UNFIT =
  'chargeId deve ser uma cobrança com vencimento PENDING deste recebedor, do mesmo pagador (customer.document) e sem outra autorização ativa';
// the first payment's charge lives at most as long as a charge may (its own limit), within the approval's time
const MAX_CHARGE_EXPIRES_IN = 604_800;

// 403: a CPF merchant; otherwise every missing charge prerequisite, named as charges name them (null: none missing).
async function merchantProblem(em: EntityManager, merchantId: string): Promise<ForbiddenError | null> {
  const [m] = await ormSql(em).query<sql.MerchantForMandate>(sql.MERCHANT_FOR_MANDATE, [merchantId]);
  if (m.document.length !== 14) return new ForbiddenError(CNPJ_ONLY, 'cnpj_required');
  const missing = [
    m.kyc_status !== 'APPROVED' && PREREQUISITE_MESSAGES.kyc,
    !m.acquirer_account_id && PREREQUISITE_MESSAGES.acquirer,
    !m.has_pix_key && PREREQUISITE_MESSAGES.pixKey,
  ].filter(Boolean);
  return missing.length ? new ForbiddenError(missing.join('; '), 'prerequisites_missing') : null;
}

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const alnum = (n: number) => Array.from({ length: n }, () => ALNUM[randomInt(ALNUM.length)]).join('');
/**
 * The mandate's id, which the PSP takes as its reference (createMandate is idempotent by it). With an idempotency key it
 * is derived from the merchant and the key (a version 4 UUID's shape), so a retry after the PSP registered the mandate
 * but the response or our insert was lost registers the same one again instead of leaving an orphan behind.
 */
function mandateIdFor(merchantId: string, idempotencyKey: string | undefined): string {
  if (!idempotencyKey) return newId();
  const h = createHash('sha256').update(`mandate-id:${merchantId}:${idempotencyKey}`).digest('hex');
  const variant = ((parseInt(h[16], 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

// A PUSH request's id (API Pix idSolicRec): SC, the recId's ISPB and date, 11 characters.
export const requestIdFor = (recId: string) => `SC${recId.slice(2, 18)}${alnum(11)}`;

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
    const [c] = await ormSql(em).query<{ id: string; txid: string }>(sql.DUE_DATE_CHARGE, [
      input.chargeId,
      merchant.id,
      input.customer.document,
    ]);
    if (!c) throw new BusinessRuleError(DUE_DATE_CHARGE_UNFIT, 'charge_unfit_for_mandate');
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
      const [row] = await ormSql(em.fork()).query<sql.MandateRow>(sql.BY_IDEMPOTENCY_KEY, [
        merchant.id,
        idempotencyKey,
      ]);
      return row ? { row, requestHash: row.request_hash } : null;
    },
    replay: (prior) => mandateView(prior.row, publicBaseUrl),
    async create(requestHash) {
      const problem = await merchantProblem(em, merchant.id);
      if (problem) throw problem;
      const charge = await chargeOfJourney(deps, em, merchant, input, expiresIn, idempotencyKey);
      const id = mandateIdFor(merchant.id, idempotencyKey);
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
        // a concurrent creation under the same key: MikroORM's UniqueConstraintViolationException (ormSql throws the
        // ORM's exceptions), which createOnce answers as a replay
        const [inserted] = await ormSql(tx).query<sql.MandateRow>(sql.INSERT_MANDATE, [
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
        // a prerequisite went away meanwhile (the PSP's mandate, never approved, expires there)
        if (!inserted) {
          const problem = await merchantProblem(tx, merchant.id);
          throw problem ?? new ForbiddenError(PREREQUISITES_CHANGED, 'prerequisites_missing');
        }
        if (requestId) await enqueue(deps.boss, tx, QUEUES.mandateRequest, { mandateId: id, requestId });
        return inserted;
      });
      return mandateView(row, publicBaseUrl);
    },
  });
  return { mandate: result, replayed };
}
