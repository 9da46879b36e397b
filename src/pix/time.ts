// The API Pix `horario` (RFC 3339 date-time) as this service may store it: a year from 2000 to 9999. JavaScript reads
// more (extended years such as +020000-01-01T00:00:00Z) than PostgreSQL takes back from toISOString(), so anything
// else is no time at all here.
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/i;
const [EARLIEST, LATEST] = [Date.UTC(2000, 0, 1), Date.UTC(10000, 0, 1)];

// Milliseconds since the epoch, or null when `horario` is not such a time.
export function pixTime(horario: unknown): number | null {
  if (typeof horario !== 'string' || !RFC3339.test(horario)) return null;
  const at = Date.parse(horario);
  return at >= EARLIEST && at < LATEST ? at : null; // NaN fails both
}
