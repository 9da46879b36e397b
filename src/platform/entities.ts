// Every entity the ORM knows about; one list shared by the processes, the CLI and the tests.
import { User } from '../auth/user.entity.ts';
import { ApiKey } from '../auth/api-key.entity.ts';
import { Merchant } from '../merchants/merchant.entity.ts';
import { PixKey } from '../pix-keys/pix-key.entity.ts';
import { Customer } from '../charges/customer.entity.ts';
import { Charge } from '../charges/charge.entity.ts';
import { ChargeCount } from '../charges/charge-count.entity.ts';
import { LedgerAccount, LedgerEntry, LedgerTransaction } from '../ledger/ledger.entity.ts';
import { Event } from '../events/event.entity.ts';
import { Webhook, WebhookDelivery } from '../webhooks/webhook.entity.ts';
import { Withdrawal } from '../withdrawals/withdrawal.entity.ts';
import { WithdrawalCount } from '../withdrawals/withdrawal-count.entity.ts';
import { SandboxTransfer } from '../acquirer/sandbox-transfer.entity.ts';

export const entities = [User, ApiKey, Merchant, PixKey, Customer, Charge, ChargeCount, LedgerAccount, LedgerTransaction, LedgerEntry, Event, Webhook, WebhookDelivery, Withdrawal,
  WithdrawalCount, SandboxTransfer];
