// The sandbox's own buttons (ACQUIRER=sandbox only; loaded when first shown, so a production portal never fetches
// them): `Ativar conta de testes` on Início (POST /v1/sandbox/onboarding) and `Simular pagamento` on a pending
// charge's page (POST /v1/sandbox/charges/{id}/pay).
import { html, useState } from './lib.js';
import { get, post } from './api.js';
import { ErrorNotice, Loading, Success, useAction, useLoad } from './ui.js';

// Ready to take charges: what the onboarding does (KYC approved, a receiving account, an ACTIVE PIX key) is done.
const isReady = (merchant, keys) =>
  merchant.kycStatus === 'APPROVED' && merchant.acquirerConfigured && keys.some((k) => k.status === 'ACTIVE');

export function SandboxAccount({ merchant, onActivated }) {
  const keys = useLoad(() => get('/v1/merchants/me/pix-keys'), [merchant]);
  const action = useAction();
  const [done, setDone] = useState(null);
  const activate = async () => {
    const result = await action.run(() => post('/v1/sandbox/onboarding'));
    if (result.ok) {
      setDone('Conta de testes ativada: KYC aprovado, conta recebedora configurada e uma chave PIX aleatória criada.');
      onActivated();
    }
  };
  return html`<section class="card sandbox" aria-labelledby="ambiente-de-testes">
    <h2 id="ambiente-de-testes">Ambiente de testes</h2>
    <p>Nada aqui movimenta dinheiro de verdade: os pagamentos são simulados.</p>
    <${Loading} state=${keys}>
      ${({ pixKeys }) =>
        isReady(merchant, pixKeys)
          ? html`<p>
              Sua conta de testes está pronta: crie uma cobrança e use <strong>Simular pagamento</strong> na página
              dela.
            </p>`
          : html`<p>
                Para receber cobranças, a conta precisa do KYC aprovado, de uma conta recebedora e de uma chave PIX. No
                ambiente de testes, um clique faz tudo isso.
              </p>
              <p>
                <button type="button" class="button" onClick=${activate} disabled=${action.busy}>
                  Ativar conta de testes
                </button>
              </p>`}
    <//>
    <${ErrorNotice} error=${action.error} />
    <${Success}>${done}<//>
  </section>`;
}

// The payer pays this charge, as the sandbox simulates it: the page (which follows a pending charge) turns to Paga.
export function SimulatePayment({ charge }) {
  const action = useAction();
  const [sent, setSent] = useState(null);
  const pay = async () => {
    const result = await action.run(() => post(`/v1/sandbox/charges/${encodeURIComponent(charge.id)}/pay`));
    if (result.ok) setSent('Pagamento simulado enviado: a cobrança fica paga em instantes.');
  };
  return html`<section class="card sandbox" aria-labelledby="simular">
    <h2 id="simular">Ambiente de testes</h2>
    <p class="muted">Simule o pagador pagando esta cobrança pelo QR Code.</p>
    <p>
      <button type="button" class="button" onClick=${pay} disabled=${action.busy || !!sent}>Simular pagamento</button>
    </p>
    <${ErrorNotice} error=${action.error} />
    <${Success}>${sent}<//>
  </section>`;
}
