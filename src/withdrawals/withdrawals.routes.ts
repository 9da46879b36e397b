import { Router } from 'express';
import type { Deps } from '../deps.ts';

// /v1/merchants/me/withdrawals (spec 4.8, 4.9).
export function withdrawalRoutes(_deps: Deps): Router {
  return Router();
}
