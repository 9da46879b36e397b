// Início: the balance (available and blocked) and the account's state; in the sandbox, `Ativar conta de testes`.
import { html } from './lib.js';
import { get, sandbox } from './api.js';
import { Badge, Loading, Page, lazy, useLoad } from './ui.js';
import { KYC_STATUS, money } from './format.js';

const SandboxAccount = lazy(() => import('./sandbox.js'), 'SandboxAccount');

export function Home() {
  const state = useLoad(async () => {
    const [balance, { merchant }] = await Promise.all([get('/v1/merchants/me/balance'), get('/v1/merchants/me')]);
    return { balance, merchant };
  }, []);
  return html`<${Page} title="Início">
    <${Loading} state=${state}>
      ${({ balance, merchant }) =>
        html`${sandbox ? html`<${SandboxAccount} merchant=${merchant} onActivated=${state.reload} />` : null}
          <div class="cards">
            <section class="card balance" aria-labelledby="saldo-disponivel">
              <h2 id="saldo-disponivel">Saldo disponível</h2>
              <p class="big" data-testid="available">${money(balance.available)}</p>
            </section>
            <section class="card" aria-labelledby="saldo-bloqueado">
              <h2 id="saldo-bloqueado">Saldo bloqueado</h2>
              <p class="big muted-number">${money(balance.blocked)}</p>
              <p class="hint">Valores em disputa (MED) ou reembolsos em andamento.</p>
            </section>
          </div>
          <section class="card" aria-labelledby="conta">
            <h2 id="conta">Sua conta</h2>
            <dl class="facts">
              <div>
                <dt>Nome</dt>
                <dd>${merchant.name}</dd>
              </div>
              <div>
                <dt>Documento</dt>
                <dd>${merchant.document}</dd>
              </div>
              <div>
                <dt>KYC</dt>
                <dd><${Badge} status=${merchant.kycStatus} labels=${KYC_STATUS} /></dd>
              </div>
              <div>
                <dt>Conta recebedora</dt>
                <dd>${merchant.acquirerConfigured ? 'Configurada' : 'Não configurada'}</dd>
              </div>
            </dl>
          </section>
          <p>
            <a class="button" href="#/cobrancas">Ver cobranças</a> <a class="button secondary" href="#/saques">Sacar</a>
          </p>`}
    <//>
  <//>`;
}
