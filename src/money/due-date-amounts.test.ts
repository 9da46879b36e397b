// The amount a due-date charge asks on each day (fine, interest, discounts, rebate): examples and properties.
import test from 'ava';
import fc from 'fast-check';
import { addDays, endOfSaoPauloDay } from '../charges/due-date.ts';
import { amountDueOn, type DueDateTerms } from './due-date-amounts.ts';
import type { Discount, Fine, Interest, Rebate } from './due-terms.ts';

const terms = (t: Partial<DueDateTerms>): DueDateTerms => ({
  original: 10_000,
  dueDate: '2026-03-10',
  rebate: null,
  discount: null,
  fine: null,
  interest: null,
  ...t,
});
const finalOn = (t: Partial<DueDateTerms>, day: string) => amountDueOn(terms(t), day).final;

test('no terms: the original amount on every day', (t) => {
  for (const day of ['2026-01-01', '2026-03-10', '2026-03-11', '2027-03-10']) t.is(finalOn({}, day), 10_000);
});

test('rebate (abatimento) applies on every day, FIXED or PERCENT of the original rounded half up', (t) => {
  t.is(finalOn({ rebate: { mode: 'FIXED', amount: 500 } }, '2026-03-01'), 9_500);
  t.is(finalOn({ rebate: { mode: 'FIXED', amount: 500 } }, '2026-04-01'), 9_500);
  t.is(finalOn({ rebate: { mode: 'PERCENT', bps: 250 } }, '2026-03-10'), 9_750);
  // 999 * 2.5% = 24.975 -> 25; 1000 * 0.05% = 0.5 -> 1; 3000 * 0.05% = 1.5 -> 2; 1010 * 0.5% = 5.05 -> 5
  t.is(finalOn({ original: 999, rebate: { mode: 'PERCENT', bps: 250 } }, '2026-03-10'), 974);
  t.is(finalOn({ original: 1000, rebate: { mode: 'PERCENT', bps: 5 } }, '2026-03-10'), 999);
  t.is(finalOn({ original: 3000, rebate: { mode: 'PERCENT', bps: 5 } }, '2026-03-10'), 2998);
  t.is(finalOn({ original: 1010, rebate: { mode: 'PERCENT', bps: 50 } }, '2026-03-10'), 1005);
});

test('FIXED_UNTIL discount: the entry with the earliest until on or after the day, none after the last', (t) => {
  const discount: Discount = {
    mode: 'FIXED_UNTIL',
    dates: [
      { until: '2026-03-01', amount: 1_000 },
      { until: '2026-03-05', amount: 500 },
    ],
  };
  const expected: [string, number][] = [
    ['2026-02-20', 9_000],
    ['2026-03-01', 9_000],
    ['2026-03-02', 9_500],
    ['2026-03-05', 9_500],
    ['2026-03-06', 10_000],
    ['2026-03-10', 10_000],
    ['2026-03-11', 10_000],
  ];
  for (const [day, final] of expected) t.is(finalOn({ discount }, day), final, day);
});

test('PERCENT_UNTIL discount is a percentage of the base (after the rebate)', (t) => {
  const discount: Discount = { mode: 'PERCENT_UNTIL', dates: [{ until: '2026-03-05', bps: 300 }] };
  // base 9500; 3% = 285
  const c = amountDueOn(terms({ rebate: { mode: 'FIXED', amount: 500 }, discount }), '2026-03-05');
  t.deepEqual(c, { original: 10_000, rebate: 500, discount: 285, fine: 0, interest: 0, final: 9_215 });
  t.is(finalOn({ rebate: { mode: 'FIXED', amount: 500 }, discount }, '2026-03-06'), 9_500);
});

test('daily discounts count calendar days before the due date (none on it)', (t) => {
  t.is(finalOn({ discount: { mode: 'DAILY_AMOUNT', amount: 20 } }, '2026-03-01'), 10_000 - 9 * 20);
  t.is(finalOn({ discount: { mode: 'DAILY_AMOUNT', amount: 20 } }, '2026-03-10'), 10_000);
  t.is(finalOn({ discount: { mode: 'DAILY_PERCENT', bps: 10 } }, '2026-03-01'), 10_000 - 90);
  // 1234 * 0.07% * 3 days = 2.5914 -> 3
  t.is(finalOn({ original: 1234, discount: { mode: 'DAILY_PERCENT', bps: 7 } }, '2026-03-07'), 1231);
  // across a month end: 2026-02-27 -> 2026-03-10 is 11 days
  t.is(finalOn({ discount: { mode: 'DAILY_AMOUNT', amount: 1 } }, '2026-02-27'), 10_000 - 11);
});

test('fine (multa) once after the due date, FIXED or PERCENT of the base', (t) => {
  t.is(finalOn({ fine: { mode: 'FIXED', amount: 200 } }, '2026-03-10'), 10_000);
  t.is(finalOn({ fine: { mode: 'FIXED', amount: 200 } }, '2026-03-11'), 10_200);
  t.is(finalOn({ fine: { mode: 'FIXED', amount: 200 } }, '2026-05-11'), 10_200);
  t.is(finalOn({ fine: { mode: 'PERCENT', bps: 200 } }, '2026-03-11'), 10_200);
  t.is(finalOn({ rebate: { mode: 'FIXED', amount: 1_000 }, fine: { mode: 'PERCENT', bps: 200 } }, '2026-03-11'), 9_180);
});

test('interest (juros) per calendar day late, in each of its four modes', (t) => {
  const late3 = '2026-03-13';
  t.is(finalOn({ interest: { mode: 'DAILY_AMOUNT', amount: 33 } }, late3), 10_099);
  t.is(finalOn({ interest: { mode: 'DAILY_PERCENT', bps: 5 } }, late3), 10_015);
  // 1% a month = base * bps * late / 300000: 10000 * 100 * 3 / 300000 = 10
  t.is(finalOn({ interest: { mode: 'MONTHLY_PERCENT', bps: 100 } }, late3), 10_010);
  // 12% a year, 30 days late: 10000 * 1200 * 30 / 3650000 = 98.63 -> 99
  t.is(finalOn({ interest: { mode: 'YEARLY_PERCENT', bps: 1_200 } }, '2026-04-09'), 10_099);
  const both = amountDueOn(
    terms({ fine: { mode: 'PERCENT', bps: 200 }, interest: { mode: 'MONTHLY_PERCENT', bps: 100 } }),
    late3,
  );
  t.deepEqual(both, { original: 10_000, rebate: 0, discount: 0, fine: 200, interest: 10, final: 10_210 });
  t.is(finalOn({ interest: { mode: 'DAILY_AMOUNT', amount: 33 } }, '2026-03-10'), 10_000);
});

test('late days across leap days and year ends', (t) => {
  const interest: Interest = { mode: 'DAILY_AMOUNT', amount: 1 };
  t.is(finalOn({ dueDate: '2028-02-28', interest }, '2028-03-01'), 10_002); // 2028 is a leap year
  t.is(finalOn({ dueDate: '2027-02-28', interest }, '2027-03-01'), 10_001);
  t.is(finalOn({ dueDate: '2026-12-31', interest }, '2027-01-01'), 10_001);
  t.is(finalOn({ dueDate: '2026-12-31', interest }, '2027-12-31'), 10_365);
});

test('never below 1 centavo: the rebate, then the discount, give way and the parts still add up', (t) => {
  const a = amountDueOn(terms({ original: 100, discount: { mode: 'DAILY_AMOUNT', amount: 500 } }), '2026-03-01');
  t.deepEqual(a, { original: 100, rebate: 0, discount: 99, fine: 0, interest: 0, final: 1 });
  const b = amountDueOn(terms({ original: 100, rebate: { mode: 'FIXED', amount: 100 } }), '2026-03-01');
  t.deepEqual(b, { original: 100, rebate: 99, discount: 0, fine: 0, interest: 0, final: 1 });
  t.is(finalOn({ original: 1, rebate: { mode: 'PERCENT', bps: 10_000 } }, '2026-03-20'), 1);
});

// ---- properties ----

const day0 = Date.UTC(2024, 0, 1);
const dateArb = fc
  .integer({ min: 0, max: 3000 })
  .map((n) => new Date(day0 + n * 86_400_000).toISOString().slice(0, 10));
const amount = fc.integer({ min: 1, max: 999_999_999_999 });
const smallAmount = fc.integer({ min: 1, max: 100_000 });
const bps = fc.integer({ min: 1, max: 10_000 });

const rebateArb: fc.Arbitrary<Rebate | null> = fc.option(
  fc.oneof(
    smallAmount.map((a) => ({ mode: 'FIXED' as const, amount: a })),
    bps.map((b) => ({ mode: 'PERCENT' as const, bps: b })),
  ),
);
const fineArb: fc.Arbitrary<Fine | null> = fc.option(
  fc.oneof(
    smallAmount.map((a) => ({ mode: 'FIXED' as const, amount: a })),
    bps.map((b) => ({ mode: 'PERCENT' as const, bps: b })),
  ),
);
const interestArb: fc.Arbitrary<Interest | null> = fc.option(
  fc.oneof(
    smallAmount.map((a) => ({ mode: 'DAILY_AMOUNT' as const, amount: a })),
    ...(['DAILY_PERCENT', 'MONTHLY_PERCENT', 'YEARLY_PERCENT'] as const).map((mode) =>
      bps.map((b) => ({ mode, bps: b })),
    ),
  ),
);
const untilDates = (dueDate: string) =>
  fc
    .uniqueArray(fc.integer({ min: 0, max: 60 }), { minLength: 1, maxLength: 3 })
    .map((offsets) => offsets.sort((x, y) => y - x).map((o) => addDays(dueDate, -o)));
const discountArb = (dueDate: string): fc.Arbitrary<Discount | null> =>
  fc.option(
    fc.oneof(
      smallAmount.map((a) => ({ mode: 'DAILY_AMOUNT' as const, amount: a })),
      bps.map((b) => ({ mode: 'DAILY_PERCENT' as const, bps: b })),
      untilDates(dueDate).chain((ds) =>
        fc
          .array(smallAmount, { minLength: ds.length, maxLength: ds.length })
          .map((as) => ({ mode: 'FIXED_UNTIL' as const, dates: ds.map((until, i) => ({ until, amount: as[i] })) })),
      ),
      untilDates(dueDate).chain((ds) =>
        fc
          .array(bps, { minLength: ds.length, maxLength: ds.length })
          .map((bs) => ({ mode: 'PERCENT_UNTIL' as const, dates: ds.map((until, i) => ({ until, bps: bs[i] })) })),
      ),
    ),
  );
const termsArb: fc.Arbitrary<DueDateTerms> = dateArb.chain((dueDate) =>
  fc.record({
    original: amount,
    dueDate: fc.constant(dueDate),
    rebate: rebateArb,
    discount: discountArb(dueDate),
    fine: fineArb,
    interest: interestArb,
  }),
);
const offsetArb = fc.integer({ min: -400, max: 4000 });

test('property: at least 1 centavo, integer parts that add up, discount only on or before the due date', (t) => {
  fc.assert(
    fc.property(termsArb, offsetArb, (terms, offset) => {
      const day = addDays(terms.dueDate, offset);
      const c = amountDueOn(terms, day);
      for (const v of Object.values(c)) if (!Number.isSafeInteger(v) || v < 0) return false;
      if (c.final < 1) return false;
      if (c.original - c.rebate - c.discount + c.fine + c.interest !== c.final) return false;
      if (offset <= 0 && (c.fine !== 0 || c.interest !== 0)) return false;
      if (offset > 0 && c.discount !== 0) return false;
      return c.rebate < c.original;
    }),
  );
  t.pass();
});

test('property: paying later never costs less once past the due date, nor (with daily discounts) before it', (t) => {
  fc.assert(
    fc.property(termsArb, offsetArb, (terms, offset) => {
      const day = addDays(terms.dueDate, offset);
      const next = addDays(day, 1);
      const daily = !terms.discount || terms.discount.mode.startsWith('DAILY');
      if (offset >= 0 || daily) return amountDueOn(terms, next).final >= amountDueOn(terms, day).final;
      return true;
    }),
  );
  t.pass();
});

test('property: each percentage is round_half_up of the exact value', (t) => {
  fc.assert(
    fc.property(amount, bps, fc.integer({ min: 1, max: 4000 }), (original, b, late) => {
      const dueDate = '2026-01-31';
      const c = amountDueOn(
        terms({ original, dueDate, interest: { mode: 'YEARLY_PERCENT', bps: b } }),
        addDays(dueDate, late),
      );
      // x = round_half_up(n / d)  <=>  2xd - d <= 2n < 2xd + d
      const n = BigInt(original) * BigInt(b) * BigInt(late);
      const d = 3_650_000n;
      const x = BigInt(c.interest);
      return 2n * x * d - d <= 2n * n && 2n * n < 2n * x * d + d;
    }),
  );
  t.pass();
});

test('property: every percentage, of every term, is round_half_up of its exact value (rebate of the original, the rest of the base)', (t) => {
  // x = round_half_up(n / d)  <=>  2xd - d <= 2n < 2xd + d
  const halfUp = (x: number, n: bigint, d: bigint) =>
    2n * BigInt(x) * d - d <= 2n * n && 2n * n < 2n * BigInt(x) * d + d;
  const due = '2026-02-27';
  fc.assert(
    fc.property(amount, bps, bps, fc.integer({ min: 1, max: 4000 }), (original, b, other, days) => {
      const rebate = amountDueOn(terms({ original, dueDate: due, rebate: { mode: 'PERCENT', bps: b } }), due).rebate;
      if (!halfUp(rebate, BigInt(original) * BigInt(b), 10_000n) && rebate !== original - 1) return false;
      // the other terms on the base left by a rebate
      const withRebate = { original, dueDate: due, rebate: { mode: 'PERCENT' as const, bps: other } };
      const base = BigInt(original - amountDueOn(terms(withRebate), due).rebate);
      const late = addDays(due, days);
      const early = addDays(due, -days);
      const checks: [number, bigint, bigint][] = [
        [
          amountDueOn(terms({ ...withRebate, fine: { mode: 'PERCENT', bps: b } }), late).fine,
          base * BigInt(b),
          10_000n,
        ],
        [
          amountDueOn(terms({ ...withRebate, interest: { mode: 'DAILY_PERCENT', bps: b } }), late).interest,
          base * BigInt(b) * BigInt(days),
          10_000n,
        ],
        [
          amountDueOn(terms({ ...withRebate, interest: { mode: 'MONTHLY_PERCENT', bps: b } }), late).interest,
          base * BigInt(b) * BigInt(days),
          300_000n,
        ],
        [
          amountDueOn(terms({ ...withRebate, interest: { mode: 'YEARLY_PERCENT', bps: b } }), late).interest,
          base * BigInt(b) * BigInt(days),
          3_650_000n,
        ],
      ];
      const until = { ...withRebate, discount: { mode: 'PERCENT_UNTIL' as const, dates: [{ until: due, bps: b }] } };
      const daily = { ...withRebate, discount: { mode: 'DAILY_PERCENT' as const, bps: b } };
      const discounts: [number, bigint, bigint][] = [
        [amountDueOn(terms(until), early).discount, base * BigInt(b), 10_000n],
        [amountDueOn(terms(daily), early).discount, base * BigInt(b) * BigInt(days), 10_000n],
      ];
      // a discount never takes the amount below 1 centavo: then it is base - 1 instead
      return (
        checks.every(([x, n, d]) => halfUp(x, n, d)) &&
        discounts.every(([x, n, d]) => halfUp(x, n, d) || BigInt(x) === base - 1n)
      );
    }),
  );
  t.pass();
});

test('the fine is charged once whatever the days late; interest grows by calendar day, across a leap day', (t) => {
  const late = (day: string) =>
    amountDueOn(
      terms({
        dueDate: '2028-02-27',
        fine: { mode: 'FIXED', amount: 200 },
        interest: { mode: 'DAILY_AMOUNT', amount: 10 },
      }),
      day,
    );
  t.like(late('2028-02-28'), { fine: 200, interest: 10 });
  t.like(late('2028-02-29'), { fine: 200, interest: 20 });
  t.like(late('2028-03-01'), { fine: 200, interest: 30 });
  t.like(late('2029-02-27'), { fine: 200, interest: 3_660 }); // 366 days: 2028 is a leap year
});

test("docs/integrating.md's worked example: a school fee with a scholarship, an early discount, fine and interest", (t) => {
  const fee: DueDateTerms = {
    original: 100_000,
    dueDate: '2026-12-10',
    rebate: { mode: 'FIXED', amount: 5_000 },
    discount: { mode: 'PERCENT_UNTIL', dates: [{ until: '2026-12-05', bps: 500 }] },
    fine: { mode: 'PERCENT', bps: 200 },
    interest: { mode: 'MONTHLY_PERCENT', bps: 100 },
  };
  const table: [string, number][] = [
    ['2026-12-01', 90_250],
    ['2026-12-05', 90_250],
    ['2026-12-06', 95_000],
    ['2026-12-10', 95_000],
    ['2026-12-11', 96_932],
    ['2026-12-25', 97_375],
    ['2027-01-09', 97_850],
  ];
  for (const [day, due] of table) t.is(amountDueOn(fee, day).final, due, day);
  t.deepEqual(amountDueOn(fee, '2026-12-11'), {
    original: 100_000,
    rebate: 5_000,
    discount: 0,
    fine: 1_900,
    interest: 32,
    final: 96_932,
  });
  t.is(endOfSaoPauloDay(addDays('2026-12-10', 30)).toISOString(), '2027-01-10T02:59:59.000Z');
});
