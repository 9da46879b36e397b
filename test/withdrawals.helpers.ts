// Helpers shared by the withdrawal and ledger test files (not a test file itself).
import { randomBytes } from 'node:crypto';
import { newId } from '../src/platform/base.entity.ts';
import { accounts, post } from '../src/ledger/ledger.service.ts';
import { main } from '../src/ops.ts';
import { User } from '../src/auth/user.entity.ts';
import { signJwt } from '../src/auth/tokens.ts';
import type { TestApp } from './support/app.ts';
import { waitUntil } from './support/receiver.ts';

// Gives a merchant a balance the way a settled payment would: a balanced ledger transaction (a CHARGE_PAID line)
export async function fund(app: TestApp, merchantId: string, amount: number): Promise<void> {
  await app.orm.em.fork().transactional((em) =>
    post(em, 'charge.payment', newId(), [
      { account: accounts.available(merchantId), amount, merchantId },
      { account: accounts.acquirerSettlement, amount: -amount },
    ]),
  );
}

export async function sql<T = any>(app: TestApp, query: string, params: unknown[] = []): Promise<T[]> {
  return app.orm.em.fork().execute<T[]>(query, params);
}

export const eventsOf = (app: TestApp, merchantId: string) =>
  sql<{ type: string; data: any }>(app, 'select type, data from events where merchant_id = ? order by created_at, id', [
    merchantId,
  ]);

export const ledgerKinds = async (app: TestApp, withdrawalId: string) =>
  (
    await sql<{ kind: string }>(
      app,
      'select kind from ledger_transactions where reference_id = ? order by created_at',
      [withdrawalId],
    )
  ).map((r) => r.kind);

export const sandboxTransfers = (app: TestApp, withdrawalId: string) =>
  sql<{ status: string; requests: number; batch_id: string | null }>(
    app,
    'select status, requests, batch_id from sandbox_transfers where idempotency_key = ?',
    [withdrawalId],
  );

// Polls until the probe returns something truthy (one polling helper for the whole suite: support/receiver.ts).
export function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined | null | false>,
  timeoutMs = 10_000,
): Promise<T> {
  return waitUntil(probe, timeoutMs, what) as Promise<T>;
}

// A user with no merchant (e.g. an operator): its JWT is valid, but "my merchant" routes have nothing to show.
export async function userWithoutMerchant(app: TestApp): Promise<string> {
  const em = app.orm.em.fork();
  const user = em.create(User, {
    email: `nomerchant-${randomBytes(5).toString('hex')}@example.com`,
    passwordHash: 'x',
    role: 'USER',
  });
  await em.flush();
  return signJwt(app.config.jwtSecret, user.id, 'USER');
}

// Runs the operator CLI in-process against the test database, capturing what it prints.
export async function ops(app: TestApp, ...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, {
    out: (s) => out.push(s),
    err: (s) => err.push(s),
    env: { DATABASE_URL: app.databaseUrl, NODE_ENV: 'test' },
  });
  return { code, out: out.join('\n'), err: err.join('\n'), json: out.length ? JSON.parse(out.join('\n')) : undefined };
}
