// Mandates written straight into the database, in any state (the day's jobs read them as the mandates module leaves
// them), one by one or thousands in one statement.
import { randomBytes, randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';

export type MandateSpec = {
  status?: 'CREATED' | 'APPROVED' | 'REJECTED' | 'EXPIRED' | 'CANCELED';
  frequency?: 'WEEKLY' | 'MONTHLY' | 'QUARTERLY' | 'SEMIANNUAL' | 'ANNUAL';
  startDate: string;
  endDate?: string | null;
  amount?: number | null; // fixed; null: variable
  minAmount?: number | null;
  retryPolicy?: 'NONE' | 'THREE_IN_SEVEN_DAYS';
  autoCharge?: { amount: number | null; leadDays: number } | null;
  expiresAt?: string;
  journey?: 'PUSH' | 'QR';
  requestStatus?: 'SENT' | null;
};

const recId = (retries: boolean) =>
  `R${retries ? 'R' : 'N'}12345678${'20261201'}${randomBytes(8).toString('base64url').replace(/[-_]/g, 'x').slice(0, 11)}`;

const COLUMNS = `id, created_at, updated_at, merchant_id, rec_id, journey, status, customer_name, customer_document,
  contract, object, frequency, start_date, end_date, amount, min_amount, retry_policy, expires_at, auto_charge, history,
  request_status`;

export async function insertMandate(em: EntityManager, merchantId: string, s: MandateSpec): Promise<string> {
  const id = randomUUID();
  const status = s.status ?? 'APPROVED';
  const history = [{ status: 'CREATED', at: '2026-11-01T12:00:00.000Z' }];
  if (status !== 'CREATED') history.push({ status, at: '2026-11-01T12:05:00.000Z' });
  await em.execute(
    `insert into mandates (${COLUMNS}) values (?, now(), now(), ?, ?, ?, ?, 'Maria Pagadora', '12345678909', 'C-1',
       'Academia', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [
      id,
      merchantId,
      recId(s.retryPolicy === 'THREE_IN_SEVEN_DAYS'),
      s.journey ?? 'QR',
      status,
      s.frequency ?? 'MONTHLY',
      s.startDate,
      s.endDate ?? null,
      s.amount === undefined ? 5000 : s.amount,
      s.minAmount ?? null,
      s.retryPolicy ?? 'NONE',
      s.expiresAt ?? '2026-11-02T12:00:00Z',
      s.autoCharge === null ? null : JSON.stringify(s.autoCharge ?? { amount: null, leadDays: 4 }),
      JSON.stringify(history),
      s.requestStatus ?? null,
    ],
  );
  return id;
}

/**
 * `count` monthly mandates of one merchant with automatic charging (fixed `amount`, `leadDays`), starting on
 * `startDate`, in one statement: APPROVED, or CREATED and waiting for the payer until `expiresAt`.
 */
export async function insertAutoMandates(
  em: EntityManager,
  merchantId: string,
  count: number,
  o: { startDate: string; amount?: number; leadDays?: number; status?: 'APPROVED' | 'CREATED'; expiresAt?: string },
): Promise<void> {
  await em.execute(
    `insert into mandates (${COLUMNS})
     select gen_random_uuid(), now(), now(), ?, 'RN1234567820261201' || substr(md5(random()::text), 1, 11), 'QR', ?,
            'Maria Pagadora', '12345678909', 'C-' || i, 'Academia', 'MONTHLY', ?::date, null, ?, null, 'NONE',
            ?::timestamptz, ?::jsonb, '[{"status":"CREATED","at":"2026-11-01T12:00:00.000Z"}]'::jsonb, null
       from generate_series(1, ?) as i`,
    [
      merchantId,
      o.status ?? 'APPROVED',
      o.startDate,
      o.amount ?? 5000,
      o.expiresAt ?? '2026-11-02T12:00:00Z',
      JSON.stringify({ amount: null, leadDays: o.leadDays ?? 4 }),
      count,
    ],
  );
}
