// Pix Automático's tests: a company merchant (receivers are companies: a valid CNPJ, check digits computed, each its
// own), an APPROVED mandate through the API (created, then approved by the sandbox payer) and its charges.
import type { TestApp } from './app.ts';
import { createMerchant, createOnboardedMerchant, type MerchantOptions } from './factories.ts';
import { plusDays } from '../../src/recurring/calendar.ts';

type Json = Record<string, any>;
export type Company = Awaited<ReturnType<typeof createMerchant>>;

export function cnpj(): string {
  const d = Array.from({ length: 8 }, () => Math.floor(Math.random() * 10)).concat([0, 0, 0, 1]);
  for (const weights of [
    [5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2],
    [6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2],
  ]) {
    const r = weights.reduce((s, w, i) => s + w * d[i], 0) % 11;
    d.push(r < 2 ? 0 : 11 - r);
  }
  return d.join('');
}

// An onboarded merchant (KYC approved, acquirer, ACTIVE PIX key) whose document is then made a CNPJ, operator-side.
export async function createCnpjMerchant(app: TestApp) {
  const m = await createOnboardedMerchant(app);
  await app.orm.em.fork().execute('update merchants set document = ? where id = ?', [cnpj(), m.merchantId]);
  return m;
}

// A merchant with a CNPJ, onboarded (KYC, acquirer, PIX key).
export async function company(app: TestApp, opts: MerchantOptions = { kyc: 'APPROVED', acquirer: true, pixKey: true }) {
  const m = await createMerchant(app, opts);
  await app.orm.em.fork().execute('update merchants set document = ? where id = ?', [cnpj(), m.merchantId]);
  return m;
}

export const payer = { name: 'Maria Souza', document: '529.982.247-25' };

// A mandate's body: QR journey, WEEKLY from tomorrow (cycle k = [today + 1 + 7k, today + 8 + 7k)), 9990 fixed.
export const mandateBody = (today: string, over: Json = {}) => ({
  journey: 'QR',
  customer: payer,
  contract: 'CT-2026-0001',
  object: 'Plano semanal',
  frequency: 'WEEKLY',
  startDate: plusDays(today, 1),
  amount: 9990,
  retryPolicy: 'THREE_IN_SEVEN_DAYS',
  ...over,
});

// A mandate created through the API, then APPROVED by the sandbox payer (payerMaxAmount for a variable one).
export async function approvedMandate(m: Company, today: string, over: Json = {}, payerMaxAmount?: number) {
  const created = await m.http.post('/v1/mandates', mandateBody(today, over));
  if (created.status !== 201) throw new Error(`mandate: ${created.status} ${JSON.stringify(created.body)}`);
  const id = created.body.mandate.id;
  const approved = await m.http.post(`/v1/sandbox/mandates/${id}/approve`, payerMaxAmount ? { payerMaxAmount } : {});
  if (approved.status !== 200) throw new Error(`approve: ${approved.status} ${JSON.stringify(approved.body)}`);
  return approved.body.mandate as Json;
}

// A recurring charge created through the API (201 expected).
export async function recurringCharge(m: Company, mandateId: string, body: Json) {
  const res = await m.http.post(`/v1/mandates/${mandateId}/charges`, body);
  if (res.status !== 201) throw new Error(`charge: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.recurringCharge as Json;
}
