// Pix Automático over API Pix: the port's mandate calls on rec/locrec/solicrec, its recurring charges on cobr. Every
// status is mapped one to one (contract); what the PSP answers is read through parse-rec.ts.
import type {
  Acquirer,
  AcquirerAttemptStatus,
  AcquirerMandate,
  AcquirerMandateStatus,
  AcquirerRecurringCharge,
  AcquirerRecurringChargeStatus,
  MandateFrequency,
} from '../acquirer.ts';
import { AcquirerRefusedError, AcquirerUnavailableError } from '../errors.ts';
import { payerText } from '../../pix/text.ts';
import type { ApiPixClient } from './client.ts';
import { toWire as toReais } from './money.ts';
import { call, orNull, portError } from './port.ts';
import type {
  CobR,
  CobRStatus,
  DevedorRec,
  Periodicidade,
  Rec,
  RecStatus,
  SolicRecStatus,
  TentativaStatus,
} from './types.ts';

const PERIODICIDADE: Record<MandateFrequency, Periodicidade> = {
  WEEKLY: 'SEMANAL',
  MONTHLY: 'MENSAL',
  QUARTERLY: 'TRIMESTRAL',
  SEMIANNUAL: 'SEMESTRAL',
  ANNUAL: 'ANUAL',
};
export const MANDATE_STATUS: Record<RecStatus, AcquirerMandateStatus> = {
  CRIADA: 'CREATED',
  APROVADA: 'APPROVED',
  REJEITADA: 'REJECTED',
  EXPIRADA: 'EXPIRED',
  CANCELADA: 'CANCELED',
};
const REQUEST_STATUS: Record<SolicRecStatus, AcquirerMandate['requestStatus']> = {
  CRIADA: 'SENT',
  ENVIADA: 'SENT',
  RECEBIDA: 'SENT',
  ACEITA: 'ACCEPTED',
  REJEITADA: 'REJECTED',
  EXPIRADA: 'EXPIRED',
  CANCELADA: 'CANCELED',
};
export const CHARGE_STATUS: Record<CobRStatus, AcquirerRecurringChargeStatus> = {
  CRIADA: 'CREATED',
  ATIVA: 'ACTIVE',
  CONCLUIDA: 'PAID',
  EXPIRADA: 'EXPIRED',
  REJEITADA: 'FAILED',
  CANCELADA: 'CANCELED',
};
// EXPIRADA (not in the contract's list: an attempt the payer's PSP never settled) counts as CANCELED: no money moved
// and it is no rejection of the payer's.
export const ATTEMPT_STATUS: Record<TentativaStatus, AcquirerAttemptStatus> = {
  SOLICITADA: 'SCHEDULED',
  AGENDADA: 'SCHEDULED',
  PAGA: 'PAID',
  REJEITADA: 'REJECTED',
  CANCELADA: 'CANCELED',
  EXPIRADA: 'CANCELED',
};
const OPEN_REC: RecStatus[] = ['CRIADA', 'APROVADA'];
const OPEN_COBR: CobRStatus[] = ['CRIADA', 'ATIVA'];
const LIVE_SOLICREC: SolicRecStatus[] = ['CRIADA', 'ENVIADA', 'RECEBIDA', 'ACEITA'];

const last = <T>(xs: T[] | undefined): T | undefined => xs?.[xs.length - 1];

// A document of 11 digits is a CPF; 14 characters a CNPJ.
const devedorOf = (p: { name: string; document: string }): DevedorRec =>
  p.document.length === 11
    ? { cpf: p.document, nome: payerText(p.name, 140) }
    : { cnpj: p.document, nome: payerText(p.name, 140) };

export function mandateOf(rec: Rec): AcquirerMandate {
  const c = rec.encerramento?.cancelamento;
  const by = c?.solicitante === 'PSP_PAGADOR' || c?.solicitante === 'USUARIO_PAGADOR' ? 'PAYER' : 'MERCHANT';
  const solicitacao = last(rec.solicitacao);
  return {
    recId: rec.idRec,
    status: MANDATE_STATUS[rec.status],
    payerMaxAmount: null, // API Pix 2.9.0 does not show the receiver the payer's maximum
    cancellation: rec.status === 'CANCELADA' ? { by, reason: c?.descricao ?? null } : null,
    requestStatus: solicitacao ? REQUEST_STATUS[solicitacao.status] : null,
    requestChangedAt: last(solicitacao?.atualizacao)?.data ?? null,
    updatedAt: last(rec.atualizacao)?.data ?? new Date().toISOString(),
  };
}

export function recurringChargeOf(cobr: CobR): AcquirerRecurringCharge {
  return {
    txid: cobr.txid,
    status: CHARGE_STATUS[cobr.status],
    attempts: cobr.tentativas.map((t) => ({
      date: t.dataLiquidacao,
      status: ATTEMPT_STATUS[t.status],
      failureCode: t.rejeicao?.codigo ?? null,
      endToEndId: t.status === 'PAGA' ? (t.endToEndId ?? null) : null,
    })),
    updatedAt: last(cobr.atualizacao)?.data ?? new Date().toISOString(),
  };
}

const noAccount = () =>
  new AcquirerRefusedError('Pix Automático indisponível: a conta recebedora no adquirente não está configurada');

async function* mapped<W, P>(items: AsyncIterable<W>, map: (w: W) => P): AsyncGenerator<P> {
  try {
    for await (const item of items) yield map(item);
  } catch (err) {
    throw portError(err);
  }
}

type Recurring = Pick<
  Acquirer,
  | 'createMandate'
  | 'requestMandate'
  | 'cancelMandate'
  | 'getMandate'
  | 'createRecurringCharge'
  | 'cancelRecurringCharge'
  | 'retryRecurringCharge'
  | 'getRecurringCharge'
  | 'mandatesBetween'
  | 'recurringChargesBetween'
>;

export function apiPixRecurring(client: ApiPixClient): Recurring {
  return {
    // QR journeys: a locrec, the rec on it, then the rec's QR (composed with the charge's for journeys 3 and 4).
    // Should anything fail once the rec exists, it is cancelled (best effort): no payer ever saw it.
    async createMandate(_id, input) {
      if (!client.hasAccount) throw noAccount();
      const qr = input.journey !== 'PUSH';
      const loc = qr ? await call(() => client.postLocRec()) : null;
      const rec = await call(() =>
        client.postRec({
          vinculo: {
            objeto: payerText(input.object, 35) || undefined,
            contrato: payerText(input.contract, 35),
            devedor: devedorOf(input.customer),
          },
          calendario: {
            dataInicial: input.startDate,
            ...(input.endDate ? { dataFinal: input.endDate } : {}),
            periodicidade: PERIODICIDADE[input.frequency],
          },
          ...(input.amount !== null
            ? { valor: { valorRec: toReais(input.amount) } }
            : input.minAmount !== null
              ? { valor: { valorMinimoRecebedor: toReais(input.minAmount) } }
              : {}),
          politicaRetentativa: input.retries ? 'PERMITE_3R_7D' : 'NAO_PERMITE',
          ...(loc ? { loc: loc.id } : {}),
          ...(input.journey === 'QR_WITH_PAYMENT' && input.txid
            ? { ativacao: { dadosJornada: { txid: input.txid } } }
            : {}),
        }),
      );
      if ((rec.idRec[1] === 'R') !== input.retries) {
        await client.patchRec(rec.idRec, { status: 'CANCELADA' }).catch(() => undefined);
        throw new AcquirerUnavailableError('O adquirente devolveu um idRec de outra política de retentativa');
      }
      if (!qr) return { recId: rec.idRec, qrCode: null, location: null };
      try {
        const withQr = await call(() => client.getRec(rec.idRec, input.txid ?? undefined));
        const qrCode = withQr.dadosQR?.pixCopiaECola;
        const location = withQr.loc?.location ?? loc?.location;
        if (!qrCode || !location) throw new AcquirerUnavailableError('O adquirente não devolveu o QR Code');
        return { recId: rec.idRec, qrCode, location };
      } catch (err) {
        await client.patchRec(rec.idRec, { status: 'CANCELADA' }).catch(() => undefined);
        throw err;
      }
    },

    // A solicitação already made for this rec with the same expiry and account, still open or accepted (a retried job
    // whose answer was lost), is not sent again; one the payer rejected or let expire does not count.
    async requestMandate(_requestId, { recId, payerAccount, expiresAt }) {
      const rec = await orNull(() => client.getRec(recId));
      if (!rec) throw new AcquirerRefusedError('O adquirente não conhece esta autorização');
      if (rec.status !== 'CRIADA') return; // approved, rejected or ended meanwhile: its callback (or the poll) says so
      const at = Date.parse(expiresAt);
      const sent = rec.solicitacao?.some(
        (s) =>
          LIVE_SOLICREC.includes(s.status) &&
          Date.parse(s.calendario?.dataExpiracaoSolicitacao) === at &&
          s.destinatario?.conta === payerAccount.account &&
          s.destinatario?.ispbParticipante === payerAccount.ispb,
      );
      if (sent) return;
      const doc = payerAccount.document;
      await call(() =>
        client.postSolicRec({
          idRec: recId,
          calendario: { dataExpiracaoSolicitacao: new Date(at).toISOString() },
          destinatario: {
            agencia: payerAccount.branch,
            conta: payerAccount.account,
            ispbParticipante: payerAccount.ispb,
            ...(doc.length === 11 ? { cpf: doc } : { cnpj: doc }),
          },
        }),
      );
    },

    async cancelMandate(recId) {
      const rec = await orNull(() => client.getRec(recId));
      if (!rec || !OPEN_REC.includes(rec.status)) return; // unknown or already ended: nothing to cancel
      await call(() => client.patchRec(recId, { status: 'CANCELADA' }));
    },

    async getMandate(recId) {
      const rec = await orNull(() => client.getRec(recId));
      return rec ? mandateOf(rec) : null;
    },

    async createRecurringCharge({ txid, recId, dueDate, amount, description, payer }) {
      if (!client.hasAccount) throw noAccount();
      const info = description ? payerText(description, 140) : '';
      const devedor = devedorOf(payer) as Record<string, string>;
      await call(() =>
        client.putCobR(txid, {
          idRec: recId,
          dataDeVencimento: dueDate,
          amount,
          devedor,
          ...(info ? { infoAdicional: info } : {}),
        }),
      );
    },

    async cancelRecurringCharge(txid) {
      const cobr = await orNull(() => client.getCobR(txid));
      if (!cobr || !OPEN_COBR.includes(cobr.status)) return;
      await call(() => client.patchCobR(txid, { status: 'CANCELADA' }));
    },

    async retryRecurringCharge(txid, date) {
      await call(() => client.postRetentativa(txid, date));
    },

    async getRecurringCharge(txid) {
      const cobr = await orNull(() => client.getCobR(txid));
      return cobr ? recurringChargeOf(cobr) : null;
    },

    mandatesBetween: (from, to) => mapped(client.allRecs({ inicio: from, fim: to }), mandateOf),
    recurringChargesBetween: (from, to) => mapped(client.allCobRs({ inicio: from, fim: to }), recurringChargeOf),
  };
}
