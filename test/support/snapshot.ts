import type { TestApp } from './app.ts';

// Every business table's contents, hashed: equal before and after means nothing was written. The event stream's
// tables are left out (the API positions committed events in the background, whatever the request in flight), and so
// are the rate limiter's counters.
export async function snapshot(app: TestApp): Promise<string> {
  const em = app.orm.em.fork();
  const tables: { name: string }[] = await em.execute(
    `select table_name as name from information_schema.tables
      where table_schema = 'public' and table_type = 'BASE TABLE' and table_name not like 'mikro_orm%'
        and table_name not like 'event\\_stream%' and table_name <> 'rate_limits'`,
  );
  const sql = tables
    .map(
      ({ name }) =>
        `select '${name}' as t, md5(coalesce(string_agg(x::text, ',' order by x::text), '')) as h from "${name}" x`,
    )
    .join(' union all ');
  const rows: { t: string; h: string }[] = await em.execute(sql);
  return rows.map((r) => `${r.t}:${r.h}`).join(';');
}
