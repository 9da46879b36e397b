// The statements of the payments module (run through MikroORM: `?` parameters).

// The endToEndIds among these that the service already settled (paid a charge, or recorded as unmatched and booked: a
// HELD record, never confirmed by the acquirer, is not settled).
export const KNOWN_PAYMENTS = `
  select end_to_end_id
    from charges
   where end_to_end_id = any(?::text[])
   union select end_to_end_id
    from unmatched_payments
   where end_to_end_id = any(?::text[]) and status <> 'HELD'`;
