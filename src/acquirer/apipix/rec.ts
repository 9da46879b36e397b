// Pix Automático calls of the API Pix client: locrec, rec, solicrec, cobr (with its retentativas) and their webhooks.
// POSTs are never retried (a lost answer is 'unavailable'); the PSP makes idRec and idSolicRec, so a POST /v2/rec or
// /v2/solicrec has no id of ours to be idempotent by (the adapter checks what exists first where it can).
import { ApiPixError } from './errors.ts';
import type { CallSpec } from './http.ts';
import { toWire } from './money.ts';
import { parsePage } from './parse.ts';
import { parseCobR, parseLocRec, parseRec, parseSolicRec, REC_ID } from './parse-rec.ts';
import type {
  CobR,
  CobRRevisada,
  CobRSolicitada,
  ContaRecebedor,
  LocRec,
  Paginacao,
  Rec,
  RecRevisada,
  RecSolicitada,
  SolicRec,
  SolicRecSolicitada,
} from './types.ts';

type Parse<T> = (ctx: { call: string; status: number }, body: unknown) => T;
type Send = <T>(spec: CallSpec, parse: Parse<T>) => Promise<T>;
type Range = { inicio: Date | string; fim: Date | string; paginaAtual?: number; itensPorPagina?: number };

export type PutCobRInput = {
  idRec: string;
  dataDeVencimento: string;
  amount: number;
  infoAdicional?: string;
  devedor?: Record<string, string>;
};

const TXID = /^[a-zA-Z0-9]{26,35}$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

function checked(value: string, pattern: RegExp, what: string): string {
  if (!pattern.test(value)) throw new RangeError(`${what} must match ${pattern.source}, got ${JSON.stringify(value)}`);
  return encodeURIComponent(value);
}

const iso = (d: Date | string) => (d instanceof Date ? d.toISOString() : d);
const rangeParams = (q: Range) => ({
  inicio: iso(q.inicio),
  fim: iso(q.fim),
  'paginacao.paginaAtual': q.paginaAtual,
  'paginacao.itensPorPagina': q.itensPorPagina,
});

// `account`: the receiving account at the PSP, every cobr's recebedor (APIPIX_ACCOUNT); without it no cobr is sent.
export function recCalls(send: Send, account: ContaRecebedor | null) {
  const accountOrFail = () => {
    if (!account) throw new RangeError('the receiving account (APIPIX_ACCOUNT) is required for a cobr');
    return account;
  };
  const calls = {
    async postLocRec(): Promise<LocRec> {
      return send({ call: 'POST /v2/locrec', method: 'POST', path: 'v2/locrec', idempotent: false }, parseLocRec);
    },

    async postRec(json: RecSolicitada): Promise<Rec> {
      return send({ call: 'POST /v2/rec', method: 'POST', path: 'v2/rec', json, idempotent: false }, parseRec);
    },

    // With `txid` (a cob's or cobv's), dadosQR is the composed QR of journeys 3 and 4.
    async getRec(idRec: string, txid?: string): Promise<Rec> {
      return send(
        {
          call: 'GET /v2/rec/{idRec}',
          method: 'GET',
          path: `v2/rec/${checked(idRec, REC_ID, 'idRec')}`,
          searchParams: { txid: txid === undefined ? undefined : checked(txid, TXID, 'txid') },
          idempotent: true,
        },
        parseRec,
      );
    },

    // Cancelling twice leaves the same rec: safe to retry.
    async patchRec(idRec: string, json: RecRevisada): Promise<Rec> {
      const path = `v2/rec/${checked(idRec, REC_ID, 'idRec')}`;
      return send({ call: 'PATCH /v2/rec/{idRec}', method: 'PATCH', path, json, idempotent: true }, parseRec);
    },

    async listRecs(q: Range): Promise<{ paginacao: Paginacao; recs: Rec[] }> {
      const spec: CallSpec = {
        call: 'GET /v2/rec',
        method: 'GET',
        path: 'v2/rec',
        idempotent: true,
        searchParams: rangeParams(q),
      };
      const { paginacao, items } = await send(spec, (ctx, body) => parsePage(ctx, body, 'recs', parseRec));
      return { paginacao, recs: items };
    },

    async *allRecs(q: Omit<Range, 'paginaAtual'>): AsyncGenerator<Rec> {
      for (let page = 0, pages = 1; page < pages; page++) {
        const res = await calls.listRecs({ ...q, paginaAtual: page });
        pages = res.paginacao.quantidadeDePaginas;
        yield* res.recs;
      }
    },

    async postSolicRec(json: SolicRecSolicitada): Promise<SolicRec> {
      const spec: CallSpec = {
        call: 'POST /v2/solicrec',
        method: 'POST',
        path: 'v2/solicrec',
        json,
        idempotent: false,
      };
      return send(spec, parseSolicRec);
    },

    async putCobR(txid: string, input: PutCobRInput): Promise<CobR> {
      const path = `v2/cobr/${checked(txid, TXID, 'txid')}`;
      const json: CobRSolicitada = {
        idRec: input.idRec,
        infoAdicional: input.infoAdicional,
        calendario: { dataDeVencimento: input.dataDeVencimento },
        valor: { original: toWire(input.amount) },
        // the due date is the attempt's date, as the merchant chose it (the service's retry window counts from it)
        ajusteDiaUtil: false,
        devedor: input.devedor,
        recebedor: accountOrFail(),
      };
      const put = () => send({ call: 'PUT /v2/cobr/{txid}', method: 'PUT', path, json, idempotent: true }, parseCobR);
      try {
        return await put();
      } catch (err) {
        // a repeated PUT refused as "already exists": the cobr we asked for is there, so the PUT succeeded
        if (!(err instanceof ApiPixError) || err.kind !== 'refused') throw err;
        const found = await calls.getCobR(txid).catch(() => null);
        const same =
          found?.idRec === input.idRec &&
          found.amount === input.amount &&
          found.calendario.dataDeVencimento === input.dataDeVencimento;
        if (found && same) return found;
        throw err;
      }
    },

    async patchCobR(txid: string, json: CobRRevisada): Promise<CobR> {
      const path = `v2/cobr/${checked(txid, TXID, 'txid')}`;
      return send({ call: 'PATCH /v2/cobr/{txid}', method: 'PATCH', path, json, idempotent: true }, parseCobR);
    },

    async getCobR(txid: string): Promise<CobR> {
      const path = `v2/cobr/${checked(txid, TXID, 'txid')}`;
      return send({ call: 'GET /v2/cobr/{txid}', method: 'GET', path, idempotent: true }, parseCobR);
    },

    // A POST, never retried by the transport; asked again after a lost answer, the PSP refuses a second tentativa on
    // that date: when the cobr has it, the retentativa was made.
    async postRetentativa(txid: string, data: string): Promise<CobR> {
      const path = `v2/cobr/${checked(txid, TXID, 'txid')}/retentativa/${checked(data, DATE, 'data')}`;
      const call = 'POST /v2/cobr/{txid}/retentativa/{data}';
      try {
        return await send({ call, method: 'POST', path, idempotent: false }, parseCobR);
      } catch (err) {
        if (!(err instanceof ApiPixError) || err.kind !== 'refused') throw err;
        const found = await calls.getCobR(txid).catch(() => null);
        if (found?.tentativas.some((t) => t.dataLiquidacao === data && t.status !== 'CANCELADA')) return found;
        throw err;
      }
    },

    async listCobRs(q: Range): Promise<{ paginacao: Paginacao; cobsr: CobR[] }> {
      const spec: CallSpec = {
        call: 'GET /v2/cobr',
        method: 'GET',
        path: 'v2/cobr',
        idempotent: true,
        searchParams: rangeParams(q),
      };
      const { paginacao, items } = await send(spec, (ctx, body) => parsePage(ctx, body, 'cobsr', parseCobR));
      return { paginacao, cobsr: items };
    },

    async *allCobRs(q: Omit<Range, 'paginaAtual'>): AsyncGenerator<CobR> {
      for (let page = 0, pages = 1; page < pages; page++) {
        const res = await calls.listCobRs({ ...q, paginaAtual: page });
        pages = res.paginacao.quantidadeDePaginas;
        yield* res.cobsr;
      }
    },

    // The PSP POSTs rec changes to `<webhookUrl>/rec` and cobr changes to `<webhookUrl>/cobr`.
    async putWebhookRec(webhookUrl: string, opts: { skipMtlsChecking?: boolean } = {}): Promise<void> {
      await webhook(send, 'rec', webhookUrl, opts);
    },
    async putWebhookCobR(webhookUrl: string, opts: { skipMtlsChecking?: boolean } = {}): Promise<void> {
      await webhook(send, 'cobr', webhookUrl, opts);
    },
    async getWebhookRec(): Promise<{ webhookUrl: string }> {
      return send({ call: 'GET /v2/webhookrec', method: 'GET', path: 'v2/webhookrec', idempotent: true }, webhookOf);
    },
    async getWebhookCobR(): Promise<{ webhookUrl: string }> {
      return send({ call: 'GET /v2/webhookcobr', method: 'GET', path: 'v2/webhookcobr', idempotent: true }, webhookOf);
    },
  };
  return calls;
}

function webhookOf(ctx: { call: string; status: number }, body: unknown): { webhookUrl: string } {
  const url = (body as { webhookUrl?: unknown } | null)?.webhookUrl;
  if (typeof url !== 'string' || !url)
    throw new ApiPixError({ call: ctx.call, status: ctx.status, kind: 'unavailable', detail: 'webhookUrl missing' });
  return { webhookUrl: url };
}

async function webhook(send: Send, kind: 'rec' | 'cobr', webhookUrl: string, opts: { skipMtlsChecking?: boolean }) {
  await send(
    {
      call: `PUT /v2/webhook${kind}`,
      method: 'PUT',
      path: `v2/webhook${kind}`,
      json: { webhookUrl },
      idempotent: true,
      headers: opts.skipMtlsChecking ? { 'x-skip-mtls-checking': 'true' } : undefined,
    },
    () => undefined,
  );
}
