// The counters' statements (counters.ts): a counter's fold and a counted listing's page, one declared statement per
// counter and per set of filtered keys (`$n`, src/platform/sql.ts).
import { createHash } from 'node:crypto';
import { statement, type Statement } from './sql.ts';

// counters.ts' Counter and PageSpec, spelled out (counters.ts imports this file).
type Counter = { table: string; keys: string };
type PageSpec = { table: string; alias: string; counter: Counter; columns: string; joins?: string; rows?: string };

// Folds each key's +n/-n rows into one row (counters.ts foldCounters).
export const foldStatement = ({ table, keys }: Counter): Statement =>
  statement(
    `platform.fold_${table}`,
    `
      with folded as (
        delete from ${table}
         where (${keys}) in (
                 select ${keys}
                   from ${table}
                  group by ${keys}
                 having count(*) > 1
               )
        returning ${keys}, count
      ),
      summed as (
        insert into ${table} (${keys}, count)
        select ${keys}, sum(count)
          from folded
         group by ${keys}
        returning 1
      )
      select (select count(*) from folded) as n`,
  );

/**
 * A counted listing's page (counters.ts countedPage) filtered on `keys`: `$1..$k` the keys' values, then the offset and
 * the limit. Its name carries the table, the keys and a hash of its text (two listings of one table may read other
 * columns). Written once per listing and set of keys; a request looks it up.
 */
const pages = new WeakMap<PageSpec, Map<string, Statement>>();
export function pageStatement(spec: PageSpec, keys: readonly string[]): Statement {
  let byKeys = pages.get(spec);
  if (!byKeys) pages.set(spec, (byKeys = new Map()));
  const key = keys.join(' ');
  let page = byKeys.get(key);
  if (!page) byKeys.set(key, (page = writePage(spec, keys)));
  return page;
}

function writePage(spec: PageSpec, keys: readonly string[]): Statement {
  const { table, alias } = spec;
  const cond = keys.map((k, i) => `${k} = $${i + 1}`).join(' and ');
  const offset = `$${keys.length + 1}`;
  const limit = `$${keys.length + 2}`;
  const text = `
    select n.total, ${spec.columns}
      from (select coalesce(sum(count), 0) as total
              from ${spec.counter.table}
             where ${cond}) n
      left join lateral (
             select id
               from ${table}
              where ${cond} and n.total > ${offset}${spec.rows ? ` and ${spec.rows}` : ''}
              order by created_at desc, id desc
              limit ${limit} offset ${offset}
           ) p on true
      left join ${table} ${alias} on ${alias}.id = p.id
      ${spec.joins ?? ''}
     order by ${alias}.created_at desc, ${alias}.id desc`;
  const hash = createHash('sha256').update(text).digest('hex').slice(0, 8);
  return statement(`platform.page_${table}_${keys.join('_')}_${hash}`, text);
}
