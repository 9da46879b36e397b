import test from 'ava';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';

// Every status change of the service comes from a row of its table's transitions ({ from, to, event? }, src/platform/
// sql.ts Transition): this finds any status written by hand into an UPDATE's SET list (or an upsert's `do update set`),
// any `case … then 'X'` assigned to a status column there, and any `x.status = 'X'` in TypeScript. A status in a
// WHERE clause (a filter) or in an INSERT (a row's first status: its creation) is not a change.
const root = join(import.meta.dirname, '..');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'assets' ? [] : sources(path);
    return e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') ? [path] : [];
  });
}

// Where a status is assigned by hand in `text`: the line and what was found.
function handWrittenStatuses(text: string): { line: number; found: string }[] {
  const found: { line: number; found: string }[] = [];
  const lineOf = (i: number) => text.slice(0, i).split('\n').length;
  // SQL: a status column set to a literal, or to a case whose branches are literals, inside a SET list
  const assignment = /(?<![.\w])(\w*status)\s*=\s*('[A-Z_]+'|case\b[\s\S]*?\bend\b)/gi;
  for (const m of text.matchAll(assignment)) {
    if (m[2].toLowerCase().startsWith('case') && !/\b(then|else)\s+'[A-Z_]+'/.test(m[2])) continue;
    const before = text.slice(0, m.index);
    const sets = [...before.matchAll(/\bset\b/gi)];
    if (!sets.length) continue;
    const lastSet = sets[sets.length - 1].index;
    // the SET list ends at the first clause keyword after it
    if (/\b(where|from|returning|when|select|values|on|and|or|having)\b/i.test(before.slice(lastSet + 3))) continue;
    found.push({ line: lineOf(m.index), found: m[0].replace(/\s+/g, ' ').slice(0, 80) });
  }
  // TypeScript: an entity's status assigned a literal
  for (const m of text.matchAll(/^\s*[\w.]+\.\w*[sS]tatus\s*=\s*['"][A-Z_]+['"];/gm))
    found.push({ line: lineOf(m.index), found: m[0].trim() });
  return found;
}

test('the scanner finds a status set by hand and leaves filters and creations alone', (t) => {
  t.is(handWrittenStatuses(`update charges set status = 'PAID', updated_at = now() where id = $1`).length, 1);
  t.is(
    handWrittenStatuses(`update m\n   set updated_at = now(),\n       request_status = case when x then 'SENT' end`)
      .length,
    1,
  );
  t.is(
    handWrittenStatuses(`insert into t (id) values ($1) on conflict (id) do update set status = 'ACTIVE'`).length,
    1,
  );
  t.is(handWrittenStatuses(`key.status = 'INACTIVE';`).length, 1);
  t.is(handWrittenStatuses(`update charges set paid_at = now() where status = 'PENDING' and x = 1`).length, 0);
  t.is(handWrittenStatuses(`update charges set status = \${to(T.pay)} where status in (\${from(T.pay)})`).length, 0);
  t.is(handWrittenStatuses(`insert into charges (id, status) values ($1, 'PENDING')`).length, 0);
  t.is(handWrittenStatuses(`if (key.status === 'ACTIVE') return;`).length, 0);
});

test('no status is changed by hand anywhere in src/ (every change is a row of a transition table)', (t) => {
  const offences = sources(join(root, 'src')).flatMap((file) =>
    handWrittenStatuses(readFileSync(file, 'utf8')).map((o) => `${relative(root, file)}:${o.line}: ${o.found}`),
  );
  t.deepEqual(offences, []);
});

// The tables themselves: every exported *_TRANSITIONS is of the one shape, its statuses plain names.
test('every transition table has the shape { from, to, event? }', async (t) => {
  const tables: string[] = [];
  for (const file of sources(join(root, 'src'))) {
    if (!/export const \w+_TRANSITIONS\b/.test(readFileSync(file, 'utf8'))) continue;
    const mod = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
    for (const [name, table] of Object.entries(mod)) {
      if (!name.endsWith('_TRANSITIONS')) continue;
      tables.push(name);
      for (const [key, row] of Object.entries(table as Record<string, Record<string, unknown>>)) {
        const where = `${name}.${key}`;
        t.deepEqual(
          Object.keys(row).filter((k) => !['from', 'to', 'event'].includes(k)),
          [],
          `${where}: only from, to, event`,
        );
        t.true(Array.isArray(row.from) && row.from.length > 0, `${where}.from`);
        for (const s of [...(row.from as string[]), row.to as string]) t.regex(s, /^[A-Z_]+$/, where);
        t.true(row.event === undefined || row.event === null || typeof row.event === 'string', `${where}.event`);
      }
    }
  }
  // the tables the issue names, at least
  for (const name of [
    'CHARGE_TRANSITIONS',
    'REFUND_TRANSITIONS',
    'MANDATE_TRANSITIONS',
    'RECURRING_CHARGE_TRANSITIONS',
  ])
    t.true(tables.includes(name), name);
});
