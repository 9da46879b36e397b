// Operator commands of merchants: KYC, acquirer account, fees, status.
import { KYC_TRANSITIONS, MERCHANT_TRANSITIONS, moveKyc, moveMerchant } from './merchants.states.ts';
import type { EntityManager } from '@mikro-orm/postgresql';
import { OpsError, OpsUsageError, type Command } from '../platform/ops.ts';
import { User } from '../auth/user.entity.ts';
import { Merchant, type IMerchant } from './merchant.entity.ts';
import { ACQUIRER_ACCOUNT_ID, approveKyc, configureAcquirerAccount, merchantView } from './merchants.service.ts';

const email = { type: 'string', required: true, description: 'e-mail of the merchant user' } as const;

async function merchantByEmail(em: EntityManager, address: string): Promise<IMerchant> {
  const user = await em.findOne(User, { email: address.trim().toLowerCase() });
  if (!user) throw new OpsError(`no user with e-mail ${address}`);
  const merchant = await em.findOne(Merchant, { user });
  if (!merchant) throw new OpsError(`user ${address} has no merchant`);
  return merchant;
}

// Loads the merchant, applies the change, saves, and prints the merchant as the API shows it.
function merchantCommand(
  name: string,
  summary: string,
  change: (m: IMerchant, flags: Record<string, string | boolean | undefined>) => void,
  extraFlags: Command['flags'] = {},
): Command {
  return {
    name,
    summary,
    flags: { email, ...extraFlags },
    async run({ em, config }, flags) {
      const merchant = await merchantByEmail(em, String(flags.email));
      change(merchant, flags);
      await em.flush();
      return {
        merchant: {
          email: String(flags.email).toLowerCase(),
          ...merchantView(merchant, { bps: config.platformFeeBps, fixed: config.platformFeeFixed }),
          acquirerAccountId: merchant.acquirerAccountId ?? null,
        },
      };
    },
  };
}

function nonNegativeInt(value: unknown, flag: string, max: number): number {
  const n = Number(value);
  if (typeof value !== 'string' || !/^\d+$/.test(value) || n > max)
    throw new OpsUsageError(`--${flag} must be an integer from 0 to ${max}`);
  return n;
}

export const merchantCommands: Command[] = [
  merchantCommand('kyc:approve', "approve the merchant's KYC", approveKyc),
  merchantCommand('kyc:reject', "reject the merchant's KYC", (m) => {
    moveKyc(m, KYC_TRANSITIONS.reject);
  }),
  merchantCommand(
    'acquirer:configure',
    'set the acquirer receiving account (KYC must be approved)',
    (m, flags) => {
      const account = flags.account === undefined ? undefined : String(flags.account).trim();
      if (account !== undefined && !ACQUIRER_ACCOUNT_ID.test(account))
        throw new OpsUsageError('--account must be 1-100 characters [A-Za-z0-9_.:-]');
      if (!configureAcquirerAccount(m, account))
        throw new OpsError('KYC must be approved before configuring the acquirer account');
    },
    { account: { type: 'string', description: 'acquirer account id (default: a generated sandbox id)' } },
  ),
  merchantCommand('merchant:block', 'block the merchant: every authenticated call answers 403', (m) => {
    moveMerchant(m, MERCHANT_TRANSITIONS.block);
  }),
  merchantCommand('merchant:unblock', 'unblock the merchant', (m) => {
    moveMerchant(m, MERCHANT_TRANSITIONS.unblock);
  }),
  merchantCommand(
    'merchant:fee',
    'set the platform fee: fixed + round_half_up(amount * bps / 10000)',
    (m, flags) => {
      m.feeBps = nonNegativeInt(flags.bps, 'bps', 10000);
      m.feeFixed = nonNegativeInt(flags.fixed, 'fixed', 1_000_000_00);
    },
    {
      bps: { type: 'string', required: true, description: 'basis points of the amount (0-10000)' },
      fixed: { type: 'string', required: true, description: 'fixed part in centavos' },
    },
  ),
];
