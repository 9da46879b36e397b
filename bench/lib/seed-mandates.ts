import type { EntityManager } from '@mikro-orm/postgresql';

// Bench helpers: Pix Automático mandates and recurring charges in bulk, one statement per table. Bench databases only.

const MANDATE_COLUMNS = `id, created_at, updated_at, merchant_id, rec_id, journey, status, customer_name, customer_document,
  contract, object, frequency, start_date, amount, retry_policy, expires_at, auto_charge, history`;

/**
 * `count` APPROVED monthly mandates of one merchant with automatic charging (fixed 50,00, leadDays 4) starting on
 * `startDate`: all due for their first charge on startDate - 4.
 */
export async function seedAutoMandates(em: EntityManager, merchantId: string, count: number, startDate: string) {
  await em.execute(
    `insert into mandates (${MANDATE_COLUMNS})
     select gen_random_uuid(), now(), now(), ?, 'RN1234567820261202' || lpad(g::text, 11, '0'), 'QR', 'APPROVED',
            'Pagador ' || g, '12345678909', 'C-' || g, 'Academia', 'MONTHLY', ?::date, 5000, 'NONE', now(),
            '{"amount":null,"leadDays":4}'::jsonb, '[{"status":"CREATED","at":"2026-11-01T12:00:00.000Z"}]'::jsonb
       from generate_series(1, ?::int) g`,
    [merchantId, startDate, count],
  );
  await em.execute('vacuum analyze mandates');
}

/**
 * `count` mandates of one merchant, one second apart ending now, each with one recurring charge (PAID) and the
 * RECURRING charges row that carries its money: what GET /v1/mandates and GET /v1/recurring-charges page over.
 * Ids are md5s of the merchant and the row's number, so the three statements find each other's rows.
 */
export async function seedMandateListing(em: EntityManager, merchantId: string, count: number) {
  const id = (kind: string) => `md5(? || '${kind}' || g)::uuid`;
  const at = `now() - (? - g) * interval '1 second'`;
  await em.execute(
    `insert into mandates (${MANDATE_COLUMNS})
     select ${id('m')}, ${at}, ${at}, ?, 'RN1234567820261203' || lpad(g::text, 11, '0'), 'QR', 'APPROVED',
            'Pagador ' || g, '12345678909', 'C-' || g, 'Academia', 'MONTHLY', date '2026-01-10', 5000, 'NONE', now(),
            null, '[{"status":"CREATED","at":"2026-01-01T12:00:00.000Z"}]'::jsonb
       from generate_series(1, ?::int) g`,
    [merchantId, count, count, merchantId, count],
  );
  await em.execute(
    `insert into charges (id, created_at, updated_at, merchant_id, txid, amount, fee, description, status, expires_in,
                          expires_at, location, qr_code, type, paid_at, paid_amount)
     select ${id('c')}, ${at}, ${at}, ?, replace(${id('c')}::text, '-', ''), 5000, 50, 'Academia', 'PAID', 86400,
            now() + interval '8 days', '', '', 'RECURRING', ${at}, 5000
       from generate_series(1, ?::int) g`,
    [merchantId, count, count, merchantId, merchantId, count, count],
  );
  await em.execute(
    `insert into recurring_charges (id, created_at, updated_at, merchant_id, mandate_id, charge_id, txid, cycle,
                                    due_date, amount, description, status, attempts, retries_left, automatic, paid_at,
                                    paid_amount, fee)
     select ${id('r')}, ${at}, ${at}, ?, ${id('m')}, ${id('c')}, replace(${id('c')}::text, '-', ''), 0,
            date '2026-01-10', 5000, 'Academia', 'PAID',
            '[{"date":"2026-01-10","kind":"DUE_DATE","status":"PAID","failureCode":null,"endToEndId":null,"at":"2026-01-10T12:00:00.000Z"}]'::jsonb,
            0, true, ${at}, 5000, 50
       from generate_series(1, ?::int) g`,
    [merchantId, count, count, merchantId, merchantId, merchantId, merchantId, count, count],
  );
  await em.execute('vacuum analyze mandates, charges, recurring_charges, mandate_counts, recurring_charge_counts');
}
