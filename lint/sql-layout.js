/**
 * SQL is written one clause per line, as graphile-worker and pg-boss write theirs, so a statement reads top to bottom.
 * Prettier never reflows a template literal; this rule (eslint, `local/sql-layout`) keeps the layout from drifting:
 * in a string or template literal that is a statement, no line ends inside a clause (after `of`, `skip`, `and`, `=`…),
 * and no line holds two clauses outside the parentheses it opens (`select … from …`; `update t set …` counts as one).
 * A short parenthesised subquery may stay on one line; DDL (a trigger's body, an index) is left alone.
 */
const STATEMENT =
  /^\s*(select\s|insert\s+into\s|delete\s+from\s|with\s+\w+\s+as\s+(materialized\s+)?\(|update\s+\w+(\s+\w+)?\s+set\s)/;
// What a line may not end with: a word or operator that needs the rest of its clause.
const DANGLING =
  /(\b(of|skip|for|on|as|and|or|by|in|is|not|join|lateral|left|inner|cross|then|else|when|case|into|set|where|from|select|distinct|values|returning|order|group|having|limit|offset|with|using|between|like|exists|union|all)|[=<>+|-])$/i;
// Where a clause starts (multi-word ones first, so `for update` is not counted as an `update`).
const CLAUSE =
  /\b(update\s+[\w.]+(\s+\w+)?\s+set|on conflict|for (no key )?update|for share|union( all)? select|(left |right |inner |full |cross )?join|insert into|delete from|group by|order by|select|from|where|having|limit|returning|values|update|set|with)\b/gi;

// The text outside the parentheses the line opens, strings and harmless phrases blanked.
function topLevel(line) {
  const text = line
    .replace(/'[^']*'/g, "''")
    .replace(/\bis (not )?distinct from\b/gi, 'is_distinct_from')
    .replace(/\bdo update( set)?\b/gi, 'do_update');
  let depth = 0;
  let out = '';
  for (const ch of text) {
    if (ch === '(') depth++;
    if (depth <= 0) out += ch;
    else out += ' ';
    if (ch === ')') depth--;
  }
  return out;
}

function check(context, node, text) {
  // a statement, not a script (a trigger's body, which is DDL)
  if (!STATEMENT.test(text) || text.includes(';')) return;
  const lines = text.split('\n');
  lines.forEach((line, i) => {
    const trimmed = line.trim();
    if (trimmed === '') return;
    const where = { line: node.loc.start.line + i, column: i === 0 ? node.loc.start.column : 0 };
    if (DANGLING.test(trimmed)) {
      context.report({ node, loc: where, message: `SQL line ends inside a clause: "${trimmed}"` });
      return;
    }
    const clauses = topLevel(trimmed).match(CLAUSE) ?? [];
    if (clauses.length > 1)
      context.report({ node, loc: where, message: `one SQL clause per line (${clauses.join(', ')}): "${trimmed}"` });
  });
}

export default {
  meta: { type: 'layout', docs: { description: 'SQL statements one clause per line' }, schema: [] },
  create(context) {
    return {
      Literal(node) {
        if (typeof node.value === 'string') check(context, node, node.value);
      },
      TemplateLiteral(node) {
        // an interpolation stands for a value or a list: a neutral word
        check(context, node, node.quasis.map((q) => q.value.cooked ?? q.value.raw).join('x'));
      },
    };
  },
};
