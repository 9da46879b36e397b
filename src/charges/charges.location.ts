// A charge's payload location (GET /pix/qr/:txid): what a banking app fetches after reading the dynamic QR code.
import type { EntityManager } from '@mikro-orm/postgresql';
import { NotFoundError } from '../platform/errors.ts';
import { ormSql } from '../platform/sql.ts';
import * as sql from './charges.sql.ts';
import { saoPauloDate } from './due-date.ts';
import { locationView } from './charges.view.ts';

// GET /pix/qr/:txid: the payload location a banking app fetches after reading the dynamic QR code (sandbox); a
// due-date charge's amounts are those of `day` (the payment day asked, else today).
export async function chargeLocation(em: EntityManager, txid: string, now: Date, day?: string) {
  const [c] = await ormSql(em).query<sql.LocationRow>(sql.LOCATION, [txid]);
  if (!c) throw new NotFoundError('Cobrança não encontrada');
  return locationView(c, now, day ?? saoPauloDate(now));
}
