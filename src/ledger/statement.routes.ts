// /v1/merchants/me/statement: the statement as JSON pages or a streamed CSV.
import { Router, type Response } from 'express';
import { matchedData } from 'express-validator';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { stringify, type Options } from 'csv-stringify';
import type { EntityManager } from '@mikro-orm/postgresql';
import { merchantIdOf } from '../auth/authenticate.ts';
import { validate } from '../platform/validation.ts';
import { statementRules } from './statement.validation.ts';
import { getStatement, statementExport, type StatementEntryView } from './statement.service.ts';
import { PT_BR_CSV_OPTIONS, ptBrRow } from './statement.csv.ts';

type Query = { page?: number; limit?: number; from?: Date; to?: Date; format?: 'json' | 'csv'; locale?: 'pt-BR' };

export const CSV_COLUMNS: (keyof StatementEntryView)[] = [
  'id',
  'createdAt',
  'type',
  'amount',
  'blockedAmount',
  'balanceAfter',
  'chargeId',
  'withdrawalId',
  'refundId',
  'infractionId',
  'recurringChargeId',
];

// The lines as CSV with a header row (csv-stringify quotes what needs it), streamed as they are read; with
// `locale=pt-BR` for Brazilian spreadsheets (statement.csv.ts).
async function sendCsv(res: Response, total: number, lines: AsyncIterable<StatementEntryView>, locale?: 'pt-BR') {
  const [rows, options, name]: [AsyncIterable<unknown>, Options, string] = locale
    ? [mapLines(lines, ptBrRow), PT_BR_CSV_OPTIONS, 'extrato-pt-BR.csv']
    : [lines, { header: true, columns: CSV_COLUMNS }, 'extrato.csv'];
  res.setHeader('content-type', 'text/csv; charset=utf-8');
  res.setHeader('content-disposition', `attachment; filename="${name}"`);
  res.setHeader('x-total-count', String(total));
  await pipeline(Readable.from(rows), stringify(options), res);
}

async function* mapLines<T>(lines: AsyncIterable<StatementEntryView>, row: (e: StatementEntryView) => T) {
  for await (const line of lines) yield row(line);
}

async function* once(entries: StatementEntryView[]) {
  yield* entries;
}

// GET /v1/merchants/me/statement (contract "Split to recipient merchants, and the statement"): JSON, or CSV with
// ?format=csv or Accept: text/csv (a page when page or limit is given, else every line of from..to).
export function statementRoutes(): Router {
  const router = Router();
  router.get('/', ...validate(statementRules), async (req, res) => {
    const q = matchedData(req, { locations: ['query'] }) as Query;
    const merchantId = merchantIdOf(req);
    const csv = q.format ? q.format === 'csv' : req.accepts(['application/json', 'text/csv']) === 'text/csv';
    const range = { from: q.from, until: q.to };
    const em: EntityManager = req.em;
    if (csv && q.page === undefined && q.limit === undefined) {
      const { total, lines } = await statementExport(em, merchantId, range);
      return sendCsv(res, total, lines, q.locale);
    }
    const body = await getStatement(em, merchantId, { page: q.page ?? 1, limit: q.limit ?? 20, ...range });
    if (csv) return sendCsv(res, body.total, once(body.entries), q.locale);
    res.json(body);
  });
  return router;
}
