// A PostgreSQL array literal for one bound parameter (`?::uuid[]`): MikroORM expands a JS array parameter into a
// list of parameters (for `in (?)`), so arrays meant for unnest()/any() travel as one literal instead.
export function pgArray(values: readonly (string | number | null)[]): string {
  const item = (v: string | number | null) => (v === null ? 'NULL' : `"${String(v).replace(/[\\"]/g, '\\$&')}"`);
  return `{${values.map(item).join(',')}}`;
}
