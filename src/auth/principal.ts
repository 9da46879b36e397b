// The caller's merchant as read with the credential (one query per request); hot paths use it instead of re-reading.
export type MerchantSnapshot = {
  id: string;
  name: string;
  city: string;
  kycStatus: string;
  acquirerAccountId: string | null;
  feeBps: number | null;
  feeFixed: number | null;
};

// Who is calling: resolved once per request by the bearer strategy.
export type Principal = {
  merchant: MerchantSnapshot | null;
  userId: string;
  role: 'USER' | 'ADMIN';
  merchantId: string | null;
  via: 'jwt' | 'apiKey';
  apiKeyId: string | null;
};
