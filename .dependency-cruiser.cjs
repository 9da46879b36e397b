// The allowed direction of imports, checked by `npm test` (npm run deps). Bottom up: platform (config, db, queue, http,
// errors, logger, lifecycle, sql helpers), pix (the BR Code and QR codec, key and document formats) and money (the
// arithmetic of fees, splits, refund shares and due-date amounts: it imports nothing at all, `money-is-pure`) import
// no domain module; each domain module imports only the modules listed for it; the composition at the top (src/*.ts:
// app, worker, deps, database, ops) and apps/, scripts/ may import anything; nothing imports the composition back.
// Money: payments (in) -> recurring (Pix Automático) -> refunds (back) -> infractions (MED holds) -> charges; withdrawals ask infractions too
// (docs/architecture.md, Layers, says why).
const MAY_IMPORT = {
  platform: [],
  // the development database (npm start's embedded PostgreSQL, and which database the tools talk to): imports no module
  'dev-db': [],
  pix: [],
  money: [],
  auth: ['platform', 'pix'],
  acquirer: ['platform', 'pix', 'money'],
  merchants: ['auth', 'platform', 'pix', 'money'],
  ledger: ['merchants', 'auth', 'platform'],
  webhooks: ['merchants', 'auth', 'platform'],
  events: ['webhooks', 'merchants', 'auth', 'platform'],
  'pix-keys': ['webhooks', 'merchants', 'auth', 'platform', 'pix'],
  charges: ['acquirer', 'ledger', 'webhooks', 'merchants', 'auth', 'platform', 'pix', 'money'],
  infractions: ['charges', 'acquirer', 'ledger', 'webhooks', 'merchants', 'auth', 'platform', 'pix'],
  withdrawals: ['infractions', 'acquirer', 'ledger', 'webhooks', 'merchants', 'auth', 'platform', 'pix'],
  refunds: [
    'infractions',
    'charges',
    'acquirer',
    'ledger',
    'webhooks',
    'merchants',
    'auth',
    'platform',
    'pix',
    'money',
  ],
  // Pix Automático: mandates and recurring charges (a recurring charge's money is a hidden charge: refunds, settlement)
  recurring: ['refunds', 'charges', 'acquirer', 'ledger', 'webhooks', 'merchants', 'auth', 'platform', 'pix', 'money'],
  payments: [
    'recurring',
    'pix-keys', // the sandbox's onboarding gives a merchant its first key
    'refunds',
    'infractions',
    'charges',
    'acquirer',
    'ledger',
    'webhooks',
    'merchants',
    'auth',
    'platform',
    'pix',
    'money',
  ],
  // the payer's hosted page: reads a charge and its merchant's name (and the Pix Automático mandate paid with it, by
  // its own SQL on the mandates table: src/recurring sits above charges)
  'payment-page': ['charges', 'merchants', 'pix', 'platform'],
  // the merchant portal: static files over the public API; it imports no module
  portal: ['platform'],
  types: ['auth'],
};

const layers = Object.entries(MAY_IMPORT).map(([module, allowed]) => ({
  name: `layer-${module}`,
  comment: `src/${module}/ may import only: ${[module, ...allowed].join(', ')}`,
  severity: 'error',
  from: { path: `^src/${module}/`, pathNot: '\\.test\\.ts$' },
  to: { path: '^src/', pathNot: `^src/(${[module, ...allowed].join('|')})/` },
}));

// eslint-disable-next-line no-undef -- CommonJS: dependency-cruiser reads this file with require()
module.exports = {
  forbidden: [
    { name: 'no-circular', comment: 'no file cycle', severity: 'error', from: {}, to: { circular: true } },
    {
      name: 'no-composition-from-modules',
      comment: 'the composition (src/*.ts) is the top: modules never import it',
      severity: 'error',
      from: { path: '^src/[^/]+/' },
      to: { path: '^src/[^/]+\\.ts$' },
    },
    {
      name: 'no-unknown-module',
      comment: 'every folder under src/ has its place in .dependency-cruiser.cjs',
      severity: 'error',
      from: { path: '^src/[^/]+/', pathNot: `^src/(${Object.keys(MAY_IMPORT).join('|')})/` },
      to: {},
    },
    {
      name: 'no-foreign-sql',
      comment:
        "a module's statements are its own: no file of src/<module>/ imports another module's *.sql.ts (the owner " +
        'exports a function, or a type from a file of its own; platform has no *.sql.ts: its sql.ts helpers are for all)',
      severity: 'error',
      from: { path: '^src/([^/]+)/' },
      to: { path: '^src/[^/]+/.+\\.sql\\.ts$', pathNot: '^src/$1/' },
    },
    {
      name: 'no-test-code-in-production',
      severity: 'error',
      from: { path: '^(src|apps)/', pathNot: '\\.test\\.ts$' },
      to: { path: '^test/' },
    },
    {
      name: 'sdk-stands-alone',
      comment:
        'sdk/ is a package of its own (@pix-payments/sdk): its sources import only each other and its dependencies',
      severity: 'error',
      from: { path: '^sdk/src/' },
      to: { path: '^(?!sdk/src/|node_modules/)', dependencyTypesNot: ['core'] },
    },
    {
      name: 'money-is-pure',
      comment:
        'src/money/ is pure arithmetic: its files import only each other (no other src/ folder, no npm package, no node: module)',
      severity: 'error',
      from: { path: '^src/money/', pathNot: '\\.test\\.ts$' },
      to: { pathNot: '^src/money/' },
    },
    ...layers,
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|\\.data|bench/results)' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
};
