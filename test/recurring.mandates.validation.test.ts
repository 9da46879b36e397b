// The mandates' optional parts (payerAccount, autoCharge) are whenPresent groups: for any body, the errors and the
// sanitised body must be exactly those of running every chain of POST /v1/mandates in order (as for the charges:
// test/validation.groups.test.ts).
import test from 'ava';
import fc from 'fast-check';
import { flat, grouped, type Step } from './support/validation-groups.ts';
import { createMandateRules } from '../src/recurring/mandates.validation.ts';

const today = () => '2026-11-26';

const small = fc.oneof(fc.integer({ min: -5, max: 20_000 }), fc.constant('100'), fc.constant(1.5), fc.constant(null));
const body = fc.record(
  {
    journey: fc.constantFrom('PUSH', 'QR', 'QR_WITH_PAYMENT', 'DUE_DATE_QR', 'OUTRA', null),
    customer: fc.oneof(
      fc.constant('Maria'),
      fc.record({ name: fc.string({ maxLength: 5 }), document: fc.constantFrom('52998224725', '123') }),
    ),
    contract: fc.constantFrom('CT-1', '', 5),
    object: fc.constantFrom('Plano', 'x'.repeat(36)),
    frequency: fc.constantFrom('MONTHLY', 'DAILY'),
    startDate: fc.constantFrom('2026-11-27', '2026-11-26', '2026-02-30'),
    endDate: fc.constantFrom(null, '2026-11-20', '2027-01-01'),
    amount: small,
    minAmount: small,
    payerAccount: fc.oneof(
      fc.constant(null),
      fc.constant('conta'),
      fc.record(
        {
          ispb: fc.constantFrom('12345678', '1234', 5),
          branch: fc.constantFrom('0001', 'x'),
          account: fc.constantFrom('123456', ''),
          document: fc.constantFrom('529.982.247-25', '1'),
        },
        { requiredKeys: [] },
      ),
    ),
    firstPayment: fc.oneof(fc.constant(null), fc.record({ amount: small })),
    chargeId: fc.constantFrom(null, '01A216FE-74EE-7408-BFB5-FB1860FC7744', 'x'),
    autoCharge: fc.oneof(
      fc.constant(null),
      fc.constant(4),
      fc.record({ amount: small, leadDays: fc.oneof(small, fc.integer({ min: 0, max: 12 })) }, { requiredKeys: [] }),
    ),
  },
  { requiredKeys: [] },
);

test('grouped mandate rules answer every body exactly as running every chain does', async (t) => {
  const steps = createMandateRules(today) as Step[];
  t.true(steps.some((s) => 'chains' in s && s.chains));
  await fc.assert(
    fc.asyncProperty(body, async (b) => {
      const [g, f] = await Promise.all([grouped(steps, b), flat(steps, b)]);
      t.deepEqual(g, f);
    }),
    { numRuns: 800 },
  );
});
