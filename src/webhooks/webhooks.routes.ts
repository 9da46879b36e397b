import { Router } from 'express';
import type { Deps } from '../deps.ts';

// /v1/webhooks/merchant (spec 4.10-4.14).
export function webhookRoutes(_deps: Deps): Router {
  return Router();
}
