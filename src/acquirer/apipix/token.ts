// OAuth2 client-credentials token cache: one token reused until shortly before it expires, one request in flight
// shared by every concurrent caller, and a way to drop a token the PSP refused.

export type IssuedToken = { accessToken: string; expiresIn: number }; // expiresIn in seconds, as the PSP says

export type TokenCache = {
  get(): Promise<string>;
  // Drops `token` if it is still the cached one (concurrent 401s on the same token cause one refresh, not many).
  invalidate(token: string): void;
};

export function createTokenCache(opts: {
  issue: () => Promise<IssuedToken>;
  marginMs?: number; // renew this long before expiry; at most half the token's lifetime
  now?: () => number;
}): TokenCache {
  const now = opts.now ?? Date.now;
  const margin = opts.marginMs ?? 60_000;
  let current: { value: string; renewAt: number } | undefined;
  let inFlight: Promise<string> | undefined;

  async function refresh(): Promise<string> {
    const started = now();
    const { accessToken, expiresIn } = await opts.issue();
    const lifetime = expiresIn * 1000;
    // A token shorter-lived than twice the margin is still used for half its life instead of never.
    current = { value: accessToken, renewAt: started + lifetime - Math.min(margin, lifetime / 2) };
    return accessToken;
  }

  return {
    get() {
      if (current && now() < current.renewAt) return Promise.resolve(current.value);
      inFlight ??= refresh().finally(() => {
        inFlight = undefined;
      });
      return inFlight;
    },
    invalidate(token) {
      if (current?.value === token) current = undefined;
    },
  };
}
