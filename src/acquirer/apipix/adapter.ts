// The apipix adapter: the Acquirer port over a PSP speaking the Banco Central "API Pix" (plus Efí's transfer calls).
import type {
  Acquirer,
  AcquirerInfractionStatus,
  PaymentNotification,
  RefundResult,
  TransferResult,
} from '../acquirer.ts';
import { AcquirerUnavailableError } from '../errors.ts';
import type { ApiPixClient } from './client.ts';
import { call, orNull, portError } from './port.ts';
import { apiPixRecurring } from './recurring.ts';
import type { Devolucao, Envio, Infracao, Pix } from './types.ts';
import { payerText, truncateText } from '../../pix/text.ts';

// horario as the PSP wrote it: settlement reads it (an unusable one counts as the time the service learnt of it).
const paymentOf = (pix: Pix): PaymentNotification => ({
  txid: pix.txid ?? null,
  endToEndId: pix.endToEndId,
  amount: pix.amount,
  paidAt: pix.horario,
  ...(pix.components ? { components: pix.components } : {}),
});

const refundOf = (d: Devolucao): RefundResult =>
  d.status === 'DEVOLVIDO'
    ? { status: 'COMPLETED' }
    : d.status === 'NAO_REALIZADO'
      ? { status: 'FAILED', failureReason: truncateText(d.motivo ?? 'Devolução não realizada pelo adquirente', 255) }
      : { status: 'PROCESSING' };

const transferOf = (e: Envio): TransferResult =>
  e.status === 'REALIZADO'
    ? { status: 'COMPLETED', batchId: e.e2eId }
    : e.status === 'NAO_REALIZADO'
      ? { status: 'FAILED', batchId: e.e2eId, failureReason: 'Transferência não realizada pelo adquirente' }
      : { status: 'PROCESSING', batchId: e.e2eId };

// API Pix ids ([a-zA-Z0-9]{1,35}): our UUIDs without their dashes.
const pspId = (uuid: string) => uuid.replaceAll('-', '');

// Efí's infraction states as the service's (EM_DEFESA: the defence was sent).
const INFRACTION_STATUS: Record<Infracao['status'], AcquirerInfractionStatus> = {
  ABERTA: 'OPEN',
  EM_DEFESA: 'UNDER_REVIEW',
  ACEITA: 'ACCEPTED',
  REJEITADA: 'REJECTED',
  CANCELADA_EFI: 'CANCELED',
};

export function createApiPixAcquirer(client: ApiPixClient): Acquirer {
  return {
    name: 'apipix',
    async createCharge({ txid, amount, expiresIn, description, payer, due }) {
      // what the payer reads (API Pix limits: nome 200, solicitacaoPagador 140)
      const nome = payer && payerText(payer.name, 200);
      const devedor = payer
        ? payer.document.length === 11
          ? { cpf: payer.document, nome: nome! }
          : { cnpj: payer.document, nome: nome! }
        : undefined;
      const solicitacaoPagador = payerText(description, 140) || undefined;
      const cob = due
        ? await call(() =>
            client.putCobV(txid, {
              dataDeVencimento: due.dueDate,
              validadeAposVencimento: due.validityAfterDueDays,
              amount,
              terms: due,
              devedor: devedor!, // a due-date charge always has its payer (the API requires customer)
              solicitacaoPagador,
            }),
          )
        : await call(() => client.putCob(txid, { expiracao: expiresIn, amount, devedor, solicitacaoPagador }));
      const location = cob.location ?? cob.loc?.location;
      if (!cob.pixCopiaECola || !location) throw new AcquirerUnavailableError('O adquirente não devolveu o QR Code');
      return { qrCode: cob.pixCopiaECola, location };
    },
    async cancelCharge(txid, due) {
      const removed = { status: 'REMOVIDA_PELO_USUARIO_RECEBEDOR' } as const;
      const cob = await orNull<{ status: string }>(() => (due ? client.getCobV(txid) : client.getCob(txid)));
      if (cob?.status !== 'ATIVA') return; // unknown, paid or already removed: nothing left to cancel
      await call<unknown>(() => (due ? client.patchCobV(txid, removed) : client.patchCob(txid, removed)));
    },
    async confirmPayment(notified) {
      const pix = await orNull(() => client.getPix(notified.endToEndId));
      return pix ? paymentOf(pix) : null;
    },
    async *paymentsBetween(from, to) {
      try {
        for await (const pix of client.allPix({ inicio: from, fim: to })) yield paymentOf(pix);
      } catch (err) {
        throw portError(err);
      }
    },
    // each refund is its own devolução (its id ours): a charge refunded in parts has several
    async refund({ endToEndId, refundId, amount, description }) {
      const descricao = description ? payerText(description, 140) || undefined : undefined;
      return refundOf(
        await call(() => client.putDevolucao(endToEndId, pspId(refundId), { amount, natureza: 'ORIGINAL', descricao })),
      );
    },
    async getRefund({ endToEndId, refundId }) {
      const d = await orNull(() => client.getDevolucao(endToEndId, pspId(refundId)));
      return d ? refundOf(d) : null;
    },
    async transferOut({ idempotencyKey, amount, pixKey, description }) {
      const envio = await call(() =>
        client.putEnvio(pspId(idempotencyKey), {
          amount,
          favorecido: { chave: pixKey },
          ...(description ? { pagador: { infoPagador: payerText(description, 140) } } : {}),
        }),
      );
      return transferOf(envio);
    },
    ...apiPixRecurring(client),
    async getTransfer(idempotencyKey) {
      const envio = await call(() => client.getEnvio(pspId(idempotencyKey)));
      return envio ? transferOf(envio) : null;
    },
    async *infractionsBetween(from, to) {
      try {
        for await (const i of client.allInfracoes({ inicio: from, fim: to })) {
          yield {
            acquirerId: i.idInfracao,
            endToEndId: i.endToEndId,
            amount: i.amount,
            status: INFRACTION_STATUS[i.status],
            reason: truncateText(i.razao ?? i.tipoSituacao ?? 'MED', 255),
            deadlineAt: i.dadosAnalise?.prazoFinalizacao ?? null,
          };
        }
      } catch (err) {
        throw portError(err);
      }
    },
    async submitDefense(acquirerId, text) {
      await call(() => client.postDefesa(acquirerId, { analise: 'rejeitado', justificativa: text }));
    },
  };
}
