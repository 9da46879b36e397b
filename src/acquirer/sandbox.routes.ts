import { Router } from 'express';
import type { Deps } from '../deps.ts';
import { merchantIdOf } from '../auth/authenticate.ts';
import { BusinessRuleError, NotFoundError } from '../platform/errors.ts';
import { Charge } from '../charges/charge.entity.ts';
import { PixKey } from '../pix-keys/pix-key.entity.ts';
import { getCharge } from '../charges/charges.service.ts';
import { acceptPaymentNotifications } from '../charges/settlement.ts';
import { sandboxEndToEndId } from './sandbox.ts';

// /v1/sandbox (only with ACQUIRER=sandbox): simulate what a payer or the acquirer would do.
export function sandboxRoutes({ boss }: Deps): Router {
  const router = Router();
  // The payer pays: the same notification a real acquirer sends, through the same queue; PAID arrives asynchronously.
  router.post('/charges/:id/pay', async (req, res) => {
    const charge = await getCharge(req.em, merchantIdOf(req), req.params.id);
    if (charge.status !== 'PENDING') throw new BusinessRuleError('Cobrança não está pendente');
    const endToEndId = sandboxEndToEndId();
    await acceptPaymentNotifications(boss, [{ txid: charge.txid, endToEndId, amount: charge.amount, paidAt: new Date().toISOString() }]);
    res.status(202).json({ message: 'Pagamento simulado enviado; a cobrança ficará PAID em instantes', endToEndId });
  });
  return router;
}

// GET /pix/qr/:txid: the payload location a banking app fetches after reading the dynamic QR code (served by us in sandbox).
export function pixLocationRoutes(): Router {
  const router = Router();
  router.get('/qr/:txid', async (req, res) => {
    const charge = await req.em.findOne(Charge, { txid: req.params.txid }, { populate: ['merchant'] });
    if (!charge) throw new NotFoundError('Cobrança não encontrada');
    const key = await req.em.findOne(PixKey, { merchant: charge.merchant, status: 'ACTIVE' }, { orderBy: { createdAt: 'asc' } });
    const reais = (charge.amount / 100).toFixed(2);
    res.json({
      txid: charge.txid,
      revisao: 0,
      status: charge.status === 'PENDING' ? 'ATIVA' : charge.status === 'PAID' || charge.status === 'REFUNDED' ? 'CONCLUIDA' : 'REMOVIDA_PELO_PSP',
      calendario: { criacao: charge.createdAt.toISOString(), apresentacao: new Date().toISOString(), expiracao: charge.expiresIn },
      valor: { original: reais },
      chave: key?.key ?? null,
      solicitacaoPagador: charge.description,
      recebedor: { nome: charge.merchant.name },
    });
  });
  return router;
}
