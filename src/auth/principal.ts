// Who is calling: resolved once per request by the bearer strategy.
export type Principal = {
  userId: string;
  role: 'USER' | 'ADMIN';
  merchantId: string | null;
  via: 'jwt' | 'apiKey';
  apiKeyId: string | null;
};
