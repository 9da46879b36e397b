/**
 * One dialect, one home (eslint `local/sql-home`): SQL is written only in a module's `*.sql.ts`, as declared
 * statements (`statement(name, text)`, src/platform/sql.ts), and runs only through the handles (`ormSql`, `createPgPool`).
 * Elsewhere it reports a string or template literal that is a statement (`select …`, `insert into …`, `update … set`,
 * `delete from …`, `with x as (…`), and a call of a driver's own entry points (`execute`, `executeQuery`,
 * `getKysely`, `getNativeClient`, `getConnection`): those belong to the handles' files, listed in the rule's options.
 * DDL (a trigger's body, an index, `create database`) is not a statement here: migrations and the development
 * database write it.
 */
const STATEMENT =
  /^\s*(select\s[\s\S]*\bfrom\s|insert\s+into\s|delete\s+from\s|with\s+\w+\s+as\s+(materialized\s+)?\(|update\s+\w+(\s+\w+)?\s+set\s)/i;
const DRIVER = new Set(['execute', 'executeQuery', 'getKysely', 'getNativeClient', 'getConnection']);

export default {
  meta: {
    type: 'problem',
    docs: { description: 'SQL only in *.sql.ts, run only through the SQL handles' },
    schema: [{ type: 'object', properties: { handles: { type: 'array', items: { type: 'string' } } } }],
  },
  create(context) {
    const file = context.filename.replace(/\\/g, '/');
    const handles = context.options[0]?.handles ?? [];
    const isHandle = handles.some((h) => file.endsWith(h));
    const isSqlFile = file.endsWith('.sql.ts');
    const report = (node, message) => context.report({ node, message });
    const text = (value) => {
      // a script (a trigger's body: DDL) holds `;`
      if (isSqlFile || isHandle || value.includes(';') || !STATEMENT.test(value)) return false;
      return true;
    };
    return {
      Literal(node) {
        if (typeof node.value === 'string' && text(node.value))
          report(node, 'SQL belongs in a *.sql.ts file, declared with statement() (src/platform/sql.ts)');
      },
      TemplateLiteral(node) {
        if (text(node.quasis.map((q) => q.value.cooked ?? q.value.raw).join('x')))
          report(node, 'SQL belongs in a *.sql.ts file, declared with statement() (src/platform/sql.ts)');
      },
      CallExpression(node) {
        const callee = node.callee;
        if (isHandle || callee.type !== 'MemberExpression' || callee.property.type !== 'Identifier') return;
        if (DRIVER.has(callee.property.name))
          report(
            node,
            `${callee.property.name}(): run statements through ormSql(em) or the pool's handle (src/platform/sql.ts)`,
          );
      },
    };
  },
};
