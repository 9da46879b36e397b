// Operator commands of the acquirer (ACQUIRER=apipix): register this service's webhook at the PSP.
import { OpsError, type Command } from '../platform/ops.ts';
import { createApiPixClient } from './apipix/client.ts';
import { apiPixClientOptions } from './index.ts';

// Operator commands of the acquirer (ACQUIRER=apipix).
export const acquirerCommands: Command[] = [
  {
    name: 'acquirer:webhook',
    summary:
      "register this service as the PSP webhook of the platform's PIX key (PUT /v2/webhook/{chave}) and of its Pix " +
      'Automático recs and cobrs (PUT /v2/webhookrec, /v2/webhookcobr: the PSP appends /rec, /cobr)',
    flags: {
      'skip-mtls-checking': {
        type: 'boolean',
        description:
          'ask the PSP not to require mTLS on the webhook URL (Efí: x-skip-mtls-checking; the URL has a token)',
      },
      'dry-run': { type: 'boolean', description: 'print the URL that would be registered, change nothing' },
    },
    async run({ config }, flags) {
      const c = config.apipix;
      if (!c) throw new OpsError('ACQUIRER=apipix and the APIPIX_* variables are required');
      // a PSP calls https only; a local PSP stub may call this machine back over plain http (not in production)
      const local = !config.strict && /^http:\/\/(127\.0\.0\.1|localhost)(:\d+)?$/.test(config.publicBaseUrl);
      if (!/^https:\/\//.test(config.publicBaseUrl) && !local)
        throw new OpsError("PUBLIC_BASE_URL must be the service's public https:// URL");
      const webhookUrl = `${config.publicBaseUrl}/v1/acquirer/apipix/${c.webhookToken}`;
      const shown = webhookUrl.replace(c.webhookToken, `${c.webhookToken.slice(0, 4)}…`);
      if (flags['dry-run']) return { dryRun: true, chave: c.pixKey, webhookUrl: shown };
      const client = createApiPixClient(apiPixClientOptions(c));
      const opts = { skipMtlsChecking: flags['skip-mtls-checking'] === true };
      try {
        await client.putWebhook(c.pixKey, webhookUrl, opts);
        await client.putWebhookRec(webhookUrl, opts);
        await client.putWebhookCobR(webhookUrl, opts);
        const [pix, rec, cobr] = await Promise.all([
          client.getWebhook(c.pixKey),
          client.getWebhookRec(),
          client.getWebhookCobR(),
        ]);
        const registered = [pix, rec, cobr].every((w) => w.webhookUrl === webhookUrl);
        return { chave: c.pixKey, webhookUrl: shown, registered };
      } finally {
        client.close();
      }
    },
  },
];
