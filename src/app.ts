// The HTTP API's composition: every route, middleware and error handler of an API process.
import express from 'express';
import cors from 'cors';
import type { Deps } from './deps.ts';
import { errorHandler, notFoundRoute, requestLogger, securityHeaders } from './platform/http.ts';
import { inflightTracker } from './platform/inflight.ts';
import { inputGuard, requireJsonBody } from './platform/input-guard.ts';
import { bearerCredential, createRateLimits } from './platform/rate-limits.ts';
import { apiDocsRoutes } from './platform/api-docs.ts';
import { createAuthenticator } from './auth/authenticate.ts';
import { authRoutes } from './auth/auth.routes.ts';
import { registerRoutes } from './merchants/register.ts';
import { apiKeyRoutes } from './auth/api-keys.routes.ts';
import { merchantRoutes } from './merchants/merchants.routes.ts';
import { statementRoutes } from './ledger/statement.routes.ts';
import { balanceRoutes } from './ledger/ledger.routes.ts';
import { webhookRoutes } from './webhooks/webhooks.routes.ts';
import { withdrawalRoutes } from './withdrawals/withdrawals.routes.ts';
import { pixKeyRoutes } from './pix-keys/pix-keys.routes.ts';
import { chargeRoutes, pixLocationRoutes } from './charges/charges.routes.ts';
import { refundRoutes } from './refunds/refunds.routes.ts';
import { latestRefund } from './refunds/refunds.service.ts';
import { acquirerNotificationRoutes, apiPixNotificationRoutes } from './payments/notifications.routes.ts';
import { infractionRoutes, sandboxInfractionRoutes } from './infractions/infractions.routes.ts';
import { sandboxRoutes } from './payments/sandbox.routes.ts';
import { simulatePayment } from './payments/payments.service.ts';
import { mandateRoutes, pixRecLocationRoutes } from './recurring/mandates.routes.ts';
import { sandboxMandateRoutes } from './recurring/mandates.sandbox.routes.ts';
import { mandateChargeRoutes, recurringChargeRoutes } from './recurring/recurring-charges.routes.ts';
import { recurringChargeSandboxRoutes } from './recurring/recurring-charges.sandbox.routes.ts';
import { recurringCallbackRoutes } from './recurring/recurring.callbacks.routes.ts';
import { paymentPageRoutes } from './payment-page/payment-page.routes.ts';
import { portalRoutes } from './portal/portal.routes.ts';
import { observability } from './observability.ts';
import { eventRoutes } from './events/events.routes.ts';
import type { EventStreams } from './events/streams.ts';
import type { PrincipalCache } from './auth/principal-cache.ts';

// The HTTP API: every route under /v1, JSON in and out (and the events stream), one error handler. `streams` is this
// process' event stream hub (src/events/streams.ts): its owner closes it on shutdown. `principals`: what credentials
// resolve to, kept (src/auth/principal-cache.ts); without it every request reads them.
export function createApp(
  deps: Deps,
  {
    streams,
    principals,
    inflight = inflightTracker(),
  }: { streams: EventStreams; principals?: PrincipalCache; inflight?: ReturnType<typeof inflightTracker> },
): express.Express {
  const { config, orm, logger } = deps;
  const app = express();
  const probes = observability(deps, streams);
  app.use(probes.middleware);
  app.use(inflight.middleware);
  app.disable('x-powered-by');
  app.set('trust proxy', config.trustProxy); // the client IP as the platform's router reports it
  app.use(securityHeaders());
  // Closed unless origins are listed: merchants call the API from their servers, not from browsers.
  if (config.corsOrigins.length)
    app.use(
      cors({
        origin: config.corsOrigins,
        allowedHeaders: ['authorization', 'content-type', 'x-idempotency-key', 'x-request-id'],
        exposedHeaders: ['x-request-id', 'retry-after'],
        maxAge: 600,
      }),
    );
  app.set('query parser', 'simple');
  app.use(requestLogger(logger));
  app.use((req, _res, next) => {
    req.em = orm.em.fork(); // a fresh identity map per request
    next();
  });
  app.use(probes.routes); // /healthz (/health), /readyz, /metrics: no credentials
  // Shared by every process (PostgreSQL): per merchant once authenticated, per IP and e-mail on login and register,
  // per IP and per credential on refused credentials (every route that checks one, the acquirer's per IP only).
  const limits = createRateLimits(config, logger);
  // Before the JSON parser: the acquirer's HMAC is computed over the raw body.
  app.use('/v1/acquirer/notifications', limits.guardCredentials(acquirerNotificationRoutes(deps)));
  if (config.apipix) {
    app.use('/v1/acquirer/apipix', limits.guardCredentials(apiPixNotificationRoutes(deps)));
    app.use('/v1/acquirer/apipix', limits.guardCredentials(recurringCallbackRoutes(deps))); // <token>/rec, <token>/cobr
  }
  // The payer's page: no credential, a per-IP budget. GET only, it reads nothing from the request but an id it checks
  // is a UUID, so it answers any other path under /pay/ (even one the input guard would refuse) with its 404 page.
  app.use('/pay', paymentPageRoutes(deps, limits.publicPerIp));
  // The merchant portal: one static page and its files, no credential (it signs in through /v1/auth/login).
  app.use('/portal', portalRoutes({ sandbox: config.acquirer === 'sandbox' }));
  app.use(requireJsonBody, express.json({ limit: config.bodyLimit }), inputGuard);

  const authenticate = [
    limits.guardCredentials(createAuthenticator(config.jwtSecret, principals), bearerCredential),
    limits.perCredential,
  ];
  const feeDefaults = { bps: config.platformFeeBps, fixed: config.platformFeeFixed };

  app.use('/v1/auth', registerRoutes(config.jwtSecret, limits.auth), authRoutes(config.jwtSecret, limits.auth));
  app.use('/v1/api-keys', authenticate, apiKeyRoutes(principals));
  app.use('/v1/merchants/me/withdrawals', authenticate, withdrawalRoutes(deps));
  app.use('/v1/merchants/me/pix-keys', authenticate, pixKeyRoutes(deps));
  app.use('/v1/charges', authenticate, chargeRoutes(deps, latestRefund), refundRoutes(deps));
  app.use('/v1/infractions', authenticate, infractionRoutes(deps));
  app.use('/v1/mandates', authenticate, mandateRoutes(deps), mandateChargeRoutes(deps));
  app.use('/v1/recurring-charges', authenticate, recurringChargeRoutes(deps));
  if (config.acquirer === 'sandbox') {
    // the sandbox payer's approval pays a QR journey's charge as its pay route does (payments sits above recurring)
    const payCharge = (em: Parameters<typeof simulatePayment>[1], merchantId: string, id: string) =>
      simulatePayment(deps, em, merchantId, id);
    app.use(
      '/v1/sandbox',
      authenticate,
      sandboxRoutes(deps, principals),
      sandboxInfractionRoutes(deps),
      sandboxMandateRoutes(deps, payCharge),
      recurringChargeSandboxRoutes(deps),
    );
    app.use('/pix', pixLocationRoutes(deps), pixRecLocationRoutes(deps));
  }
  app.use('/v1/merchants/me/balance', authenticate, balanceRoutes());
  app.use('/v1/merchants/me/statement', authenticate, statementRoutes());
  app.use('/v1/merchants', authenticate, merchantRoutes(feeDefaults));
  app.use('/v1/webhooks/merchant', authenticate, webhookRoutes(deps));
  app.use('/v1/events', authenticate, eventRoutes(streams));
  app.use(apiDocsRoutes());

  app.use(notFoundRoute);
  app.use(errorHandler);
  return app;
}
