// A charge's creation (POST /v1/charges): prerequisites, splits, due-date terms, the guarded insert, the PSP.
import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { AcquirerDeps } from '../acquirer/acquirer.ts';
import type { MerchantSnapshot } from '../auth/principal.ts';
import { BusinessRuleError, ForbiddenError, ValidationError } from '../platform/errors.ts';
import { newId } from '../platform/base.entity.ts';
import { createOnce } from '../platform/idempotency.ts';
import { ormSql } from '../platform/sql.ts';
import { enqueue, QUEUES } from '../platform/queue.ts';
import { effectiveFee, platformFee } from '../money/money.ts';
import type { Discount, Fine, Interest, Rebate } from '../money/due-terms.ts';
import { Charge } from './charge.entity.ts';
import * as sql from './charges.sql.ts';
import { addDays, endOfSaoPauloDay, saoPauloDate } from './due-date.ts';
import { DEFAULT_VALIDITY_DAYS } from './due-date.validation.ts';
import { pendingSplits, resolveSplits, splitsFit, type ChargeSplit, type SplitInput } from '../money/splits.ts';
import { chargeView, creationView, type ChargeFields } from './charges.view.ts';

export type CustomerInput = { name: string; document: string; email?: string; phone?: string };
export type DueDateInput = {
  dueDate: string;
  validityAfterDueDays?: number;
  rebate?: Rebate;
  discount?: Discount;
  fine?: Fine;
  interest?: Interest;
};
export type CreateChargeInput = {
  amount: number;
  description: string;
  expiresIn?: number;
  customer?: CustomerInput;
  tracking?: Record<string, string>;
  splits?: SplitInput[];
} & Partial<DueDateInput>;

export const DEFAULT_EXPIRES_IN = 86400;

export const PREREQUISITE_MESSAGES = {
  kyc: 'KYC não aprovado',
  acquirer: 'Conta recebedora não configurada',
  pixKey: 'Nenhuma chave PIX ativa',
};

// 403 naming every missing prerequisite (KYC approved, acquirer account, an ACTIVE PIX key). Only asked after the
// guarded insert refused, so the usual path pays no query for it.
async function missingPrerequisites(em: EntityManager, merchantId: string): Promise<ForbiddenError> {
  const [m] = await ormSql(em).query<{ kyc_status: string; acquirer_account_id: string | null; has_pix_key: boolean }>(
    sql.PREREQUISITES,
    [merchantId],
  );
  const missing = [
    m.kyc_status !== 'APPROVED' && PREREQUISITE_MESSAGES.kyc,
    !m.acquirer_account_id && PREREQUISITE_MESSAGES.acquirer,
    !m.has_pix_key && PREREQUISITE_MESSAGES.pixKey,
  ].filter(Boolean);
  return new ForbiddenError(
    missing.join('; ') || 'Pré-requisitos da cobrança mudaram; tente novamente',
    'prerequisites_missing',
  );
}

// Said of every recipient that cannot receive, whatever the reason: whether another merchant's id is unknown, blocked
// or waiting for KYC is that merchant's business, not the charge owner's.
export const UNUSABLE_RECIPIENT = 'não pode receber splits (é preciso um merchant ativo, com KYC aprovado)';

// Why a merchant cannot receive a split of this charge (null: it can). The owner's own id and a repeated entry are
// facts of the request itself, so they are named.
function recipientProblem(repeated: boolean, owner: boolean, r: sql.RecipientRow | undefined) {
  if (owner) return 'é o próprio dono da cobrança';
  if (repeated) return 'aparece mais de uma vez';
  if (!r || r.status !== 'ACTIVE' || r.kyc_status !== 'APPROVED') return UNUSABLE_RECIPIENT;
  return null;
}

/**
 * The splits of a new charge, as it keeps them (null: none): an immediate charge's resolved on its net amount now
 * (its fee is final), a due-date charge's `bps` splits left for the payment. 400 when they do not fit in the net amount;
 * 422 naming each recipient that is not another ACTIVE merchant with KYC APPROVED, listed once (one message for an
 * unknown, blocked or unapproved one: the owner learns nothing of another merchant's state). A recipient blocked
 * or refused after this still gets its split at payment (docs/decisions.md).
 */
async function splitsFor(
  em: EntityManager,
  ownerId: string,
  splits: SplitInput[] | undefined,
  net: number | null,
): Promise<ChargeSplit[] | null> {
  if (!splits) return null;
  if (!splitsFit(net ?? 1, splits))
    throw new ValidationError([
      {
        field: 'splits',
        message:
          net === null
            ? 'a soma dos bps dos splits passa de 10000 (100% do valor líquido)'
            : `a soma dos splits passa do valor líquido da cobrança (${net} centavos: amount - fee)`,
      },
    ]);
  const ids = splits.map((x) => x.merchantId);
  const found = new Map((await ormSql(em).query<sql.RecipientRow>(sql.RECIPIENTS, [ids])).map((r) => [r.id, r]));
  const problems = ids.flatMap((id, i) => {
    const why = recipientProblem(ids.indexOf(id) !== i, id === ownerId, found.get(id));
    return why ? [`splits[${i}].merchantId ${id} ${why}`] : [];
  });
  if (problems.length)
    throw new BusinessRuleError(`Recebedor de split inválido: ${problems.join('; ')}`, 'split_recipient_invalid');
  return net === null ? pendingSplits(splits) : resolveSplits(net, splits);
}

type NewCharge = ChargeFields & {
  merchantId: string;
  location: string;
  idempotencyKey: string | null;
  requestHash: string | null;
  feeBps: number | null;
  feeFixed: number | null;
};

/**
 * Inserts the charge (and upserts its customer, reused per merchant by document) in ONE statement guarded by the
 * prerequisites: atomic without an explicit transaction, one round trip on the hottest path of the API.
 * Returns null when a prerequisite is missing (nothing written).
 */
async function insertCharge(em: EntityManager, c: NewCharge, customer?: CustomerInput) {
  const values = [
    c.id,
    c.createdAt,
    c.createdAt,
    c.merchantId,
    c.txid,
    c.amount,
    c.fee,
    c.description,
    'PENDING',
    c.expiresIn,
    c.expiresAt,
  ];
  const json = (v: unknown) => (v == null ? null : JSON.stringify(v));
  const rest = [json(c.tracking), c.location, c.qrCode, c.idempotencyKey, c.requestHash];
  const due = [
    c.type ?? 'IMMEDIATE',
    c.dueDate ?? null,
    c.validityAfterDueDays ?? null,
    json(c.rebate),
    json(c.discount),
    json(c.fine),
    json(c.interest),
    c.feeBps,
    c.feeFixed,
    json(c.splits),
  ];
  const payer = [customer?.name, customer?.email ?? null, customer?.phone ?? null]; // the charge's own copy
  if (!customer) {
    const rows = await ormSql(em).query<{ id: string }>(sql.INSERT_CHARGE, [...values, ...rest, ...due]);
    return rows.length ? { customer: null } : null;
  }
  const rows = await ormSql(em).query<{ id: string; name: string; document: string }>(sql.INSERT_CHARGE_WITH_CUSTOMER, [
    newId(),
    c.merchantId,
    customer.name,
    customer.document,
    customer.email ?? null,
    customer.phone ?? null,
    ...values,
    ...payer,
    ...rest,
    ...due,
  ]);
  return rows.length ? { customer: rows[0] } : null;
}

/**
 * The charge's txid (API Pix: 26..35 alphanumerics). With an idempotency key it is derived from the merchant and the key,
 * so a retry after the acquirer registered the charge but the response or our insert was lost registers the same cob
 * again (the acquirer answers with the existing one) instead of leaving an orphan behind.
 */
function txidFor(id: string, merchantId: string, idempotencyKey: string | undefined): string {
  if (!idempotencyKey) return id.replaceAll('-', '');
  return createHash('sha256').update(`${merchantId}:${idempotencyKey}`).digest('hex').slice(0, 32);
}

// The validity of a due-date charge: until the last second of its last valid day (dueDate + validityAfterDueDays) in
// São Paulo, inclusive of that second's fraction, so a payment at 23:59:59.5 on the last day still pays it.
function dueValidity(dueDate: string, validityAfterDueDays: number, createdAt: Date) {
  const lastSecond = endOfSaoPauloDay(addDays(dueDate, validityAfterDueDays));
  return {
    expiresAt: new Date(lastSecond.getTime() + 999),
    expiresIn: Math.max(1, Math.ceil((lastSecond.getTime() - createdAt.getTime()) / 1000)),
  };
}

/**
 * POST /v1/charges: creation -> PENDING. One call to the acquirer (the cob, or the cobv of a charge with a due date,
 * and its BR Code) then one insert: a charge exists here only once the acquirer knows it; an acquirer that is down or
 * refuses answers 503 or 502 and nothing is written (a retry with the same x-idempotency-key may then succeed).
 */
export async function createCharge(
  deps: Pick<AcquirerDeps, 'acquirer' | 'config' | 'boss' | 'clock'>,
  em: EntityManager,
  merchant: MerchantSnapshot,
  input: CreateChargeInput,
  idempotencyKey?: string,
) {
  const merchantId = merchant.id;
  const { publicBaseUrl } = deps.config;
  const due = input.dueDate
    ? {
        dueDate: input.dueDate,
        validityAfterDueDays: input.validityAfterDueDays ?? DEFAULT_VALIDITY_DAYS,
        rebate: input.rebate ?? null,
        discount: input.discount ?? null,
        fine: input.fine ?? null,
        interest: input.interest ?? null,
      }
    : null;
  const expiresIn = input.expiresIn ?? DEFAULT_EXPIRES_IN;
  // the request as it is fingerprinted for idempotency: defaults applied (a due date has no expiresIn)
  const request = due ? { ...input, validityAfterDueDays: due.validityAfterDueDays } : { ...input, expiresIn };
  const { result, replayed } = await createOnce(idempotencyKey, request, {
    find: () => em.fork().findOne(Charge, { merchant: merchantId, idempotencyKey }, { populate: ['customer'] }),
    replay: (c) => creationView(c, publicBaseUrl),
    async create(requestHash) {
      if (!merchant.acquirerAccountId) throw await missingPrerequisites(em, merchantId);
      const feeTerms = effectiveFee(merchant, { bps: deps.config.platformFeeBps, fixed: deps.config.platformFeeFixed });
      // a due-date charge's fee is final at payment, on the amount paid; until then, the original amount's
      const fee = platformFee(input.amount, feeTerms);
      const validity = due && dueValidity(due.dueDate, due.validityAfterDueDays, deps.clock());
      if (validity && validity.expiresAt <= deps.clock())
        throw new ValidationError([
          { field: 'dueDate', message: 'dueDate não pode ser anterior a hoje (America/Sao_Paulo)' },
        ]);
      const splits = await splitsFor(em, merchantId, input.splits, due ? null : input.amount - fee);
      const id = newId();
      const txid = txidFor(id, merchantId, idempotencyKey);
      const { qrCode, location } = await deps.acquirer.createCharge({
        txid,
        amount: input.amount,
        expiresIn: validity?.expiresIn ?? expiresIn,
        description: input.description,
        ...(input.customer ? { payer: { name: input.customer.name, document: input.customer.document } } : {}),
        merchant: { name: merchant.name, city: merchant.city },
        ...(due ? { due } : {}),
      });
      const createdAt = deps.clock();
      const charge: ChargeFields = {
        id,
        txid,
        amount: input.amount,
        fee,
        description: input.description,
        status: 'PENDING',
        createdAt,
        ...(due
          ? { type: 'DUE_DATE', ...due, ...dueValidity(due.dueDate, due.validityAfterDueDays, createdAt) }
          : { type: 'IMMEDIATE', expiresIn, expiresAt: new Date(createdAt.getTime() + expiresIn * 1000) }),
        tracking: input.tracking ?? null,
        qrCode,
        splits,
      };
      const inserted = await insertCharge(
        em,
        {
          ...charge,
          merchantId,
          location,
          idempotencyKey: idempotencyKey ?? null,
          requestHash,
          feeBps: due ? feeTerms.bps : null,
          feeFixed: due ? feeTerms.fixed : null,
        },
        input.customer,
      );
      if (!inserted) {
        // a prerequisite went away meanwhile: the charge the acquirer registered must not stay payable
        await enqueue(deps.boss, null, QUEUES.chargeCancel, { txid, ...(due ? { due: true } : {}) });
        throw await missingPrerequisites(em, merchantId);
      }
      return chargeView(charge, inserted.customer, {
        publicBaseUrl,
        image: true,
        tracking: true,
        today: saoPauloDate(createdAt),
      });
    },
  });
  return { charge: result, replayed };
}
