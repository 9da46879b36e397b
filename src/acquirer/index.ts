import type { Config } from '../platform/config.ts';
import type { Acquirer } from './acquirer.ts';
import { createSandboxAcquirer } from './sandbox.ts';

// Picks the adapter named by ACQUIRER.
export function createAcquirer(config: Config): Acquirer {
  return createSandboxAcquirer({ publicBaseUrl: config.publicBaseUrl });
}

export type { Acquirer } from './acquirer.ts';
