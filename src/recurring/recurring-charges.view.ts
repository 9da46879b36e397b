// A recurring charge as the API shows it: the pure view lives with the charges (src/charges/recurring.view.ts), which
// record recurring_charge.refunded with it; the recurring module shows it with the same function.
export { recurringChargeView, type RecurringChargeRow, type RecurringAttemptRow } from '../charges/recurring.view.ts';
