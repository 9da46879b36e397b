// HTTP client of a PSP speaking the Banco Central "API Pix" (v2), plus Efí's transfer-out and MED calls.
// Amounts in and out are integer centavos; the wire's "10.50" never goes through a float.
import { ApiPixError } from './errors.ts';
import { createApiPixHttp, type ApiPixHttpOptions, type CallSpec } from './http.ts';
import { toWire } from './money.ts';
import { cobvValor } from './cobv.ts';
import { recCalls } from './rec.ts';
import {
  parseCob,
  parseCobV,
  parseDevolucao,
  parseEnvio,
  parseInfracao,
  parsePage,
  parsePix,
  parsePixInList,
  parseWebhook,
} from './parse.ts';
import type { DueTerms } from '../../money/due-terms.ts';
import type {
  Cob,
  CobRevisada,
  ContaRecebedor,
  CobSolicitada,
  CobV,
  CobVRevisada,
  CobVSolicitada,
  DefesaSolicitada,
  Devedor,
  Devolucao,
  DevolucaoSolicitada,
  Envio,
  EnvioSolicitado,
  InfoAdicional,
  Infracao,
  Paginacao,
  Pix,
  PixPage,
  WebhookCompleto,
} from './types.ts';

// pixKey: the platform's key, every cob's `chave`; account: its receiving account, every cobr's `recebedor`.
export type ApiPixClientOptions = ApiPixHttpOptions & { pixKey: string; account?: ContaRecebedor | null };

export type PutCobInput = {
  expiracao: number;
  amount: number;
  devedor?: Devedor;
  solicitacaoPagador?: string;
  infoAdicionais?: InfoAdicional[];
};
export type PatchCobInput = {
  status?: 'REMOVIDA_PELO_USUARIO_RECEBEDOR';
  expiracao?: number;
  amount?: number;
  devedor?: Devedor;
  solicitacaoPagador?: string;
};
export type PutCobVInput = {
  dataDeVencimento: string;
  validadeAposVencimento: number;
  amount: number;
  terms: DueTerms;
  devedor: Devedor;
  solicitacaoPagador?: string;
};
export type DateRange = { inicio: Date | string; fim: Date | string };
export type PageQuery = DateRange & { paginaAtual?: number; itensPorPagina?: number };
export type PutDevolucaoInput = { amount: number; natureza?: 'ORIGINAL' | 'RETIRADA'; descricao?: string };
export type PutEnvioInput = {
  amount: number;
  pagador?: { chave?: string; infoPagador?: string }; // chave defaults to the platform's key
  favorecido: { chave: string; cpf?: string; cnpj?: string };
};

const TXID = /^[a-zA-Z0-9]{26,35}$/; // TxId of a cob
const E2EID = /^[a-zA-Z0-9]{32}$/; // EndToEndId
const ID35 = /^[a-zA-Z0-9]{1,35}$/; // DevolucaoId, Efí's idEnvio

function checked(value: string, pattern: RegExp, what: string): string {
  // A malformed id is our bug: the PSP would only refuse it, so it never leaves the process.
  if (!pattern.test(value)) throw new RangeError(`${what} must match ${pattern.source}, got ${JSON.stringify(value)}`);
  return encodeURIComponent(value);
}

const iso = (d: Date | string) => (d instanceof Date ? d.toISOString() : d);

export function createApiPixClient(options: ApiPixClientOptions) {
  const http = createApiPixHttp(options);

  async function send<T>(
    spec: CallSpec,
    parse: (ctx: { call: string; status: number }, body: unknown) => T,
  ): Promise<T> {
    const res = await http.send(spec);
    return parse({ call: spec.call, status: res.status }, res.body);
  }

  // A PUT whose first attempt reached the PSP but whose answer was lost comes back on retry as "already exists" at
  // some PSPs: when the resource is there and is the one we asked for, that is success, not a refusal.
  async function orExisting<T>(
    put: () => Promise<T>,
    get: () => Promise<T | null>,
    same: (found: T) => boolean,
  ): Promise<T> {
    try {
      return await put();
    } catch (err) {
      if (!(err instanceof ApiPixError) || err.kind !== 'refused') throw err;
      const found = await get().catch(() => null);
      if (found && same(found)) return found;
      throw err;
    }
  }

  // Every method is async, so a bad argument (RangeError) rejects like any other failure instead of throwing.
  const client = {
    ...recCalls(send, options.account ?? null),
    // Pix Automático is possible only with the receiving account every cobr names.
    hasAccount: Boolean(options.account),
    async putCob(txid: string, input: PutCobInput): Promise<Cob> {
      const path = `v2/cob/${checked(txid, TXID, 'txid')}`;
      const json: CobSolicitada = {
        calendario: { expiracao: input.expiracao },
        devedor: input.devedor,
        valor: { original: toWire(input.amount) },
        chave: options.pixKey,
        solicitacaoPagador: input.solicitacaoPagador,
        infoAdicionais: input.infoAdicionais,
      };
      return orExisting(
        () => send({ call: 'PUT /v2/cob/{txid}', method: 'PUT', path, json, idempotent: true }, parseCob),
        () => client.getCob(txid),
        (cob) => cob.amount === input.amount && cob.chave === options.pixKey,
      );
    },

    async patchCob(txid: string, input: PatchCobInput): Promise<Cob> {
      const json: CobRevisada = {
        status: input.status,
        calendario: input.expiracao === undefined ? undefined : { expiracao: input.expiracao },
        valor: input.amount === undefined ? undefined : { original: toWire(input.amount) },
        devedor: input.devedor,
        solicitacaoPagador: input.solicitacaoPagador,
      };
      // Setting the same fields twice leaves the same cob: safe to retry.
      return send(
        {
          call: 'PATCH /v2/cob/{txid}',
          method: 'PATCH',
          path: `v2/cob/${checked(txid, TXID, 'txid')}`,
          json,
          idempotent: true,
        },
        parseCob,
      );
    },

    async getCob(txid: string): Promise<Cob> {
      return send(
        { call: 'GET /v2/cob/{txid}', method: 'GET', path: `v2/cob/${checked(txid, TXID, 'txid')}`, idempotent: true },
        parseCob,
      );
    },

    async putCobV(txid: string, input: PutCobVInput): Promise<CobV> {
      const path = `v2/cobv/${checked(txid, TXID, 'txid')}`;
      const json: CobVSolicitada = {
        calendario: {
          dataDeVencimento: input.dataDeVencimento,
          validadeAposVencimento: input.validadeAposVencimento,
        },
        devedor: input.devedor,
        valor: cobvValor(input.amount, input.terms),
        chave: options.pixKey,
        solicitacaoPagador: input.solicitacaoPagador,
      };
      return orExisting(
        () => send({ call: 'PUT /v2/cobv/{txid}', method: 'PUT', path, json, idempotent: true }, parseCobV),
        () => client.getCobV(txid),
        (cobv) =>
          cobv.amount === input.amount &&
          cobv.chave === options.pixKey &&
          cobv.calendario?.dataDeVencimento === input.dataDeVencimento,
      );
    },

    // A cobv's only revision here is its removal (an expired charge): setting it twice leaves the same cobv.
    async patchCobV(txid: string, input: CobVRevisada): Promise<CobV> {
      return send(
        {
          call: 'PATCH /v2/cobv/{txid}',
          method: 'PATCH',
          path: `v2/cobv/${checked(txid, TXID, 'txid')}`,
          json: input,
          idempotent: true,
        },
        parseCobV,
      );
    },

    async getCobV(txid: string): Promise<CobV> {
      return send(
        {
          call: 'GET /v2/cobv/{txid}',
          method: 'GET',
          path: `v2/cobv/${checked(txid, TXID, 'txid')}`,
          idempotent: true,
        },
        parseCobV,
      );
    },

    async getPix(e2eid: string): Promise<Pix> {
      return send(
        {
          call: 'GET /v2/pix/{e2eid}',
          method: 'GET',
          path: `v2/pix/${checked(e2eid, E2EID, 'e2eid')}`,
          idempotent: true,
        },
        parsePix,
      );
    },

    async listPix(q: PageQuery & { txid?: string }): Promise<PixPage> {
      const { paginacao, items } = await send(
        {
          call: 'GET /v2/pix',
          method: 'GET',
          path: 'v2/pix',
          idempotent: true,
          searchParams: {
            inicio: iso(q.inicio),
            fim: iso(q.fim),
            txid: q.txid,
            'paginacao.paginaAtual': q.paginaAtual,
            'paginacao.itensPorPagina': q.itensPorPagina,
          },
        },
        (ctx, body) => parsePage(ctx, body, 'pix', parsePixInList),
      );
      return { paginacao, pix: items.filter((p) => p !== null) };
    },

    // Every Pix received in the range, page after page, as the PSP's `parametros.paginacao` counts them.
    async *allPix(q: DateRange & { txid?: string; itensPorPagina?: number }): AsyncGenerator<Pix> {
      for (let page = 0, pages = 1; page < pages; page++) {
        const res = await client.listPix({ ...q, paginaAtual: page });
        pages = res.paginacao.quantidadeDePaginas;
        yield* res.pix;
      }
    },

    async putDevolucao(e2eid: string, id: string, input: PutDevolucaoInput): Promise<Devolucao> {
      const path = `v2/pix/${checked(e2eid, E2EID, 'e2eid')}/devolucao/${checked(id, ID35, 'devolucao id')}`;
      const json: DevolucaoSolicitada = {
        valor: toWire(input.amount),
        natureza: input.natureza,
        descricao: input.descricao,
      };
      return orExisting(
        () =>
          send(
            { call: 'PUT /v2/pix/{e2eid}/devolucao/{id}', method: 'PUT', path, json, idempotent: true },
            parseDevolucao,
          ),
        () => client.getDevolucao(e2eid, id),
        (d) => d.amount === input.amount,
      );
    },

    async getDevolucao(e2eid: string, id: string): Promise<Devolucao> {
      const path = `v2/pix/${checked(e2eid, E2EID, 'e2eid')}/devolucao/${checked(id, ID35, 'devolucao id')}`;
      return send(
        { call: 'GET /v2/pix/{e2eid}/devolucao/{id}', method: 'GET', path, idempotent: true },
        parseDevolucao,
      );
    },

    // Efí refuses a webhook URL whose server does not do mTLS unless x-skip-mtls-checking says so.
    async putWebhook(chave: string, webhookUrl: string, opts: { skipMtlsChecking?: boolean } = {}): Promise<void> {
      await http.send({
        call: 'PUT /v2/webhook/{chave}',
        method: 'PUT',
        path: `v2/webhook/${encodeURIComponent(chave)}`,
        json: { webhookUrl },
        idempotent: true,
        headers: opts.skipMtlsChecking ? { 'x-skip-mtls-checking': 'true' } : undefined,
      });
    },

    async getWebhook(chave: string): Promise<WebhookCompleto> {
      return send(
        {
          call: 'GET /v2/webhook/{chave}',
          method: 'GET',
          path: `v2/webhook/${encodeURIComponent(chave)}`,
          idempotent: true,
        },
        parseWebhook,
      );
    },

    // Efí: the same idEnvio is never sent twice, so this PUT is safe to retry.
    async putEnvio(idEnvio: string, input: PutEnvioInput): Promise<Envio> {
      const path = `v3/gn/pix/${checked(idEnvio, ID35, 'idEnvio')}`;
      const json: EnvioSolicitado = {
        valor: toWire(input.amount),
        pagador: { chave: input.pagador?.chave ?? options.pixKey, infoPagador: input.pagador?.infoPagador },
        favorecido: input.favorecido,
      };
      return orExisting(
        () => send({ call: 'PUT /v3/gn/pix/{idEnvio}', method: 'PUT', path, json, idempotent: true }, parseEnvio),
        () => client.getEnvio(idEnvio),
        (e) =>
          e.amount === input.amount &&
          (e.favorecido?.chave === undefined || e.favorecido.chave === input.favorecido.chave),
      );
    },

    // null when the PSP never received that idEnvio (so a reconciler knows it may send it).
    async getEnvio(idEnvio: string): Promise<Envio | null> {
      const path = `v2/gn/pix/enviados/id-envio/${checked(idEnvio, ID35, 'idEnvio')}`;
      try {
        return await send(
          { call: 'GET /v2/gn/pix/enviados/id-envio/{idEnvio}', method: 'GET', path, idempotent: true },
          parseEnvio,
        );
      } catch (err) {
        if (err instanceof ApiPixError && err.kind === 'not_found') return null;
        throw err;
      }
    },

    async listInfracoes(q: PageQuery): Promise<{ paginacao: Paginacao; infracoes: Infracao[] }> {
      const { paginacao, items } = await send(
        {
          call: 'GET /v2/gn/infracoes',
          method: 'GET',
          path: 'v2/gn/infracoes',
          idempotent: true,
          searchParams: {
            inicio: iso(q.inicio),
            fim: iso(q.fim),
            'paginacao.paginaAtual': q.paginaAtual,
            'paginacao.itensPorPagina': q.itensPorPagina,
          },
        },
        (ctx, body) => parsePage(ctx, body, 'infracoes', parseInfracao),
      );
      return { paginacao, infracoes: items };
    },

    async *allInfracoes(q: DateRange & { itensPorPagina?: number }): AsyncGenerator<Infracao> {
      for (let page = 0, pages = 1; page < pages; page++) {
        const res = await client.listInfracoes({ ...q, paginaAtual: page });
        pages = res.paginacao.quantidadeDePaginas;
        yield* res.infracoes;
      }
    },

    // A POST: never retried (a second defence would be a second submission); a lost answer surfaces as 'unavailable'.
    async postDefesa(idInfracao: string, input: { justificativa: string; analise?: 'rejeitado' }): Promise<void> {
      const json: DefesaSolicitada = { analise: input.analise ?? 'rejeitado', justificativa: input.justificativa };
      await http.send({
        call: 'POST /v2/gn/infracoes/{idInfracao}/defesa',
        method: 'POST',
        path: `v2/gn/infracoes/${encodeURIComponent(idInfracao)}/defesa`,
        json,
        idempotent: false,
      });
    },

    // Closes the kept-alive sockets; the client is unusable afterwards.
    close(): void {
      http.close();
    },
  };
  return client;
}

export type ApiPixClient = ReturnType<typeof createApiPixClient>;
