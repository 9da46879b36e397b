// The terms of a charge with a due date (the BCB's cobv `valor`): what changes the amount a payer owes with the day
// they pay. Integer centavos (`amount`) and integer basis points (`bps`, 200 = 2.00 %); dates are `YYYY-MM-DD`. Shared
// by the amount-due arithmetic (due-date-amounts.ts) and the acquirer port, which sends them to the PSP.

// abatimento: always applied
export type Rebate = { mode: 'FIXED'; amount: number } | { mode: 'PERCENT'; bps: number };
// desconto: for paying on or before the due date
export type Discount =
  | { mode: 'FIXED_UNTIL'; dates: { until: string; amount: number }[] }
  | { mode: 'PERCENT_UNTIL'; dates: { until: string; bps: number }[] }
  | { mode: 'DAILY_AMOUNT'; amount: number }
  | { mode: 'DAILY_PERCENT'; bps: number };
// multa: once, when paid after the due date
export type Fine = { mode: 'FIXED'; amount: number } | { mode: 'PERCENT'; bps: number };
// juros: per calendar day late
export type Interest =
  | { mode: 'DAILY_AMOUNT'; amount: number }
  | { mode: 'DAILY_PERCENT'; bps: number }
  | { mode: 'MONTHLY_PERCENT'; bps: number }
  | { mode: 'YEARLY_PERCENT'; bps: number };

export type DueTerms = {
  rebate: Rebate | null;
  discount: Discount | null;
  fine: Fine | null;
  interest: Interest | null;
};
