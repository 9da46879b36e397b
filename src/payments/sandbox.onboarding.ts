// The sandbox's self-service onboarding of a merchant (KYC, acquirer account, a first key).
import { randomUUID } from 'node:crypto';
import { LockMode, type EntityManager } from '@mikro-orm/postgresql';
import type { Services } from '../platform/services.ts';
import { AUTH_MESSAGES, BusinessRuleError, NotFoundError } from '../platform/errors.ts';
import { transactional } from '../platform/transaction.ts';
import { Merchant } from '../merchants/merchant.entity.ts';
import { approveKyc, configureAcquirerAccount, merchantView } from '../merchants/merchants.service.ts';
import { PixKey } from '../pix-keys/pix-key.entity.ts';
import { createPixKey } from '../pix-keys/pix-keys.service.ts';

export const KYC_REJECTED_MESSAGE =
  'O KYC desta conta foi reprovado pela operação: a ativação da conta de testes não o aprova de novo';

/**
 * POST /v1/sandbox/onboarding: what an operator does for a new merchant (`kyc:approve`, `acquirer:configure`, a PIX
 * key), done by the merchant itself in the sandbox, in one transaction under the merchant row's lock, so that two
 * calls at once make one account and one key. Idempotent: what is already done stays as it is (an account already
 * configured keeps its id, a merchant with any ACTIVE key gets none). A KYC the operator rejected stays rejected (422):
 * the sandbox does not overturn an operator's decision (kyc:approve does). A blocked merchant never gets here (403).
 */
export async function onboardSandboxMerchant(
  deps: Pick<Services, 'boss' | 'config'>,
  em: EntityManager,
  merchantId: string,
) {
  return transactional(em, async (tx) => {
    const m = await tx.findOne(Merchant, { id: merchantId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    if (!m) throw new NotFoundError(AUTH_MESSAGES.merchantNotFound);
    if (m.kycStatus === 'REJECTED') throw new BusinessRuleError(KYC_REJECTED_MESSAGE, 'kyc_rejected');
    if (m.kycStatus !== 'APPROVED') approveKyc(m);
    if (!m.acquirerAccountId) configureAcquirerAccount(m);
    if ((await tx.count(PixKey, { merchant: merchantId, status: 'ACTIVE' })) === 0)
      await createPixKey(deps, tx, merchantId, { type: 'CHAVE_ALEATORIA', key: randomUUID() });
    await tx.flush();
    return merchantView(m, { bps: deps.config.platformFeeBps, fixed: deps.config.platformFeeFixed });
  });
}
