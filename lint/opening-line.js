// A file opens with what it is for: its first line is a comment (`// …` or `/** …`), before any import.
/**
 * eslint, `local/opening-line`, on every TypeScript file of src/, apps/ and scripts/: someone opening a file reads in
 * its first line what the file is for, before its imports. A file whose first line is code (an import, an export) or
 * blank is reported.
 */
export default {
  meta: { type: 'suggestion', docs: { description: 'the first line of a file says what it is for' }, schema: [] },
  create(context) {
    return {
      Program(node) {
        const first = context.sourceCode.lines[0] ?? '';
        if (/^(\/\/ \S|\/\*\*?( |$))/.test(first)) return;
        context.report({
          node,
          loc: { line: 1, column: 0 },
          message: 'open the file with a comment line saying what it is for (before its imports)',
        });
      },
    };
  },
};
