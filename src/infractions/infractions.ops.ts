// Operator commands of infractions (MED): decide one, list the open ones.
import { createLogger } from '../platform/logger.ts';
import { OpsError, type Command, type OpsContext } from '../platform/ops.ts';
import { decide, type Outcome } from './infractions.states.ts';
import { ormSql } from '../platform/sql.ts';
import * as sql from './infractions.sql.ts';
import { infractionView } from './infractions.view.ts';

const OUTCOMES: [Outcome, string][] = [
  ['accept', 'ACCEPTED: the payer gets the amount back (block consumed, charge REFUNDED, infraction.refund_completed)'],
  ['reject', 'REJECTED: the blocked amount goes back to the merchant'],
  ['cancel', 'CANCELED: the blocked amount goes back to the merchant'],
];

const decideCommand = ([outcome, summary]: [Outcome, string]): Command => ({
  name: `infraction:${outcome}`,
  summary,
  flags: { id: { type: 'string', required: true, description: 'the infraction id' } },
  async run({ em, config, boss }: OpsContext, flags) {
    const deps = { config, boss: await boss(), logger: createLogger('silent', 'ops') };
    const infraction = await decide(deps, em, String(flags.id), outcome);
    if (!infraction) throw new OpsError(`infraction ${String(flags.id)} is already decided`);
    return { infraction };
  },
});

// Operators decide infractions (the sandbox's, or to override a PSP) and see the open ones and their deadlines.
export const infractionCommands: Command[] = [
  ...OUTCOMES.map(decideCommand),
  {
    name: 'infractions:list',
    summary: 'infractions, by deadline (at most 1000)',
    flags: {
      open: { type: 'boolean', description: 'only OPEN and UNDER_REVIEW' },
      overdue: { type: 'boolean', description: 'only OPEN past their defence deadline' },
    },
    async run({ em }, flags) {
      const rows = await ormSql(em).query<sql.InfractionRow & { merchant_name: string }>(sql.OPS_LIST, [
        flags.open === true,
        flags.overdue === true,
      ]);
      return {
        count: rows.length,
        infractions: rows.map((r) => ({
          ...infractionView(r),
          merchantId: r.merchant_id,
          merchant: r.merchant_name,
          shortfall: r.shortfall,
          acquirerId: r.acquirer_id,
        })),
      };
    },
  },
];
