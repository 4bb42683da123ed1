import neostandard from 'neostandard'

// The embedded commerce backend (src/embedded-commerce/) is a separate house: the service reaches it only over
// HTTP at app.commerceUrl, as it would a real Medusa. Only src/app.ts registers it (test/, scripts/ and bench/
// may use it directly); it imports only shared infrastructure and the pure club specs it provisions and seeds
// from. The list is in docs/commerce.md; a new entry is a decision, not a convenience.
const EMBEDDED_MAY_IMPORT = [
  'plugins/redis', 'stores/redis-client', 'stores/keys', 'stores/define-script', 'config', 'logger', 'auth/tokens',
  'club/provision', 'tenants/spec', 'tenants/setup-ids', 'tenants/demo', 'tenants/roles',
]

const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

// no-restricted-imports matches the import as written, so each depth of src/embedded-commerce/ gets the
// `../` prefix that leaves the folder from there.
const embeddedImports = [0, 1, 2].map((depth) => ({
  files: [`src/embedded-commerce/${'*/'.repeat(depth)}*.ts`],
  rules: {
    'no-restricted-imports': ['error', {
      patterns: [{
        regex: `^(\\.\\./){${depth + 1}}(?!(${EMBEDDED_MAY_IMPORT.map(escape).join('|')})\\.ts$)`,
        message: 'src/embedded-commerce/ imports only shared infrastructure (see EMBEDDED_MAY_IMPORT in eslint.config.js).',
      }],
    }],
  },
}))

export default [
  ...neostandard({ ts: true, ignores: ['node_modules/**', 'docs/**', '.cache/**', 'dist/**', 'console/src/api.gen.ts'] }),
  // the charter's line length, strings and comments included: a long text is split with +
  { rules: { '@stylistic/max-len': ['error', { code: 160, tabWidth: 2 }] } },
  {
    files: ['src/**/*.ts'],
    ignores: ['src/app.ts', 'src/embedded-commerce/**'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [{
          regex: '(^|/)embedded-commerce(/|$)',
          message: 'Only src/app.ts registers the embedded commerce backend; the service reaches it over HTTP (app.commerceUrl).',
        }],
      }],
    },
  },
  ...embeddedImports,
]
