// whenPresent runs the rules of an optional part of a charge (customer, due date, splits) only when the body has it.
// That must never change an answer: for any body, the errors (and the sanitised body) are exactly those of running
// every chain of POST /v1/charges in order, as before the grouping.
import test from 'ava';
import fc from 'fast-check';
import { flat, grouped, type Step } from './support/validation-groups.ts';
import { createChargeRules } from '../src/charges/charges.validation.ts';

const today = () => '2026-11-26';

const date = fc.oneof(
  fc.constantFrom('2026-11-26', '2026-12-10', '2026-12-05', '2025-01-01', '2026-02-30', 'amanhã', '2040-01-01'),
  fc
    .date({ min: new Date('2026-01-01'), max: new Date('2027-12-31'), noInvalidDate: true })
    .map((d) => d.toISOString().slice(0, 10)),
);
const small = fc.oneof(fc.integer({ min: -5, max: 20_000 }), fc.constant('100'), fc.constant(1.5), fc.constant(null));
const term = (modes: string[], keys: string[]) =>
  fc.oneof(
    fc.constant(null),
    fc.string(),
    fc.record(
      {
        mode: fc.constantFrom(...modes, 'OUTRO'),
        ...Object.fromEntries(keys.map((k) => [k, small])),
        dates: fc.array(fc.record({ until: date, amount: small, bps: small }, { requiredKeys: ['until'] }), {
          maxLength: 4,
        }),
      },
      { requiredKeys: ['mode'] },
    ),
  );
const body = fc.record(
  {
    amount: fc.oneof(fc.integer({ min: -10, max: 200_000 }), fc.constant('10'), fc.constant(2 ** 31)),
    description: fc.oneof(fc.string({ maxLength: 20 }), fc.constant(''), fc.constant(7)),
    expiresIn: fc.oneof(fc.constant(null), fc.integer({ min: 0, max: 700_000 })),
    customer: fc.oneof(
      fc.constant(null),
      fc.constant('Maria'),
      fc.record(
        {
          name: fc.oneof(fc.string({ maxLength: 10 }), fc.constant(' Maria Silva ')),
          document: fc.constantFrom('52998224725', '529.982.247-25', '11222333000181', '123', 5),
          email: fc.constantFrom('maria@example.com', 'nao-email', null, 3),
          phone: fc.constantFrom('+5511999990000', '12', null),
        },
        { requiredKeys: [] },
      ),
    ),
    tracking: fc.oneof(fc.constant(null), fc.constant({ utm_source: 'x' }), fc.constant({ outro: 'y' })),
    dueDate: fc.oneof(fc.constant(null), date),
    validityAfterDueDays: fc.oneof(fc.constant(null), fc.integer({ min: -1, max: 4000 })),
    rebate: term(['FIXED', 'PERCENT'], ['amount', 'bps']),
    discount: term(['FIXED_UNTIL', 'PERCENT_UNTIL', 'DAILY_AMOUNT', 'DAILY_PERCENT'], ['amount', 'bps']),
    fine: term(['FIXED', 'PERCENT'], ['amount', 'bps']),
    interest: term(['DAILY_AMOUNT', 'DAILY_PERCENT', 'MONTHLY_PERCENT', 'YEARLY_PERCENT'], ['amount', 'bps']),
    splits: fc.oneof(
      fc.constant(null),
      fc.constant('x'),
      fc.array(
        fc.oneof(
          fc.record(
            {
              merchantId: fc.oneof(
                fc.uuid(),
                fc.constant('nao-uuid'),
                fc.constant('01A216FE-74EE-7408-BFB5-FB1860FC7744'),
              ),
              amount: small,
              bps: small,
            },
            { requiredKeys: ['merchantId'] },
          ),
          fc.constant(3),
        ),
        { maxLength: 12 },
      ),
    ),
  },
  { requiredKeys: [] },
);

test('grouped rules answer every body exactly as running every chain does (errors and sanitised body)', async (t) => {
  const steps = createChargeRules(today) as Step[];
  t.true(
    steps.some((s) => 'chains' in s && s.chains),
    'the rules are grouped: this test compares something',
  );
  await fc.assert(
    fc.asyncProperty(body, async (b) => {
      const [g, f] = await Promise.all([grouped(steps, b), flat(steps, b)]);
      t.deepEqual(g, f);
    }),
    { numRuns: 1500 },
  );
  // and the common request, a plain charge, is valid
  const plain = { amount: 1050, description: 'Pedido 1' };
  t.deepEqual((await grouped(steps, plain)).errors, []);
});
