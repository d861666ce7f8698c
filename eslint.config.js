import { createRequire } from 'node:module'
import neostandard from 'neostandard'

// The browser's names for public/, from the list neostandard itself uses for its `env` option (its
// own copy of the `globals` package); Node's names, which neostandard gives every file, are taken away.
const globals = createRequire(import.meta.resolve('neostandard'))('globals')
const browserOnly = {
  ...Object.fromEntries(Object.keys(globals.node).map(name => [name, 'off'])),
  ...globals.browser
}

// The floors of the house (docs/architecture.md): src/server.ts → src/app.ts → routes/ →
// plugins/ → src/domain/. Imports point down only; routes never import each other.
const above = (floor, groups) => ({
  '@typescript-eslint/no-restricted-imports': ['error', {
    patterns: [{ group: groups, message: `${floor} imports nothing from a floor above it (docs/architecture.md)` }]
  }]
})

export default [
  ...neostandard({
    ts: true,
    ignores: ['dist/**', '.tap/**', 'coverage/**', '.exp/**']
  }),
  {
    files: ['src/domain/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', {
        patterns: [{ group: ['**/plugins/*', '**/routes/*', '**/app.js', '**/server.js', '**/server-options.js'], message: 'src/domain/ is the ground floor: it imports nothing above it (docs/architecture.md)' }],
        // It knows nothing of Fastify: types may be named, nothing of it is run.
        paths: ['fastify', 'fastify-plugin', '@fastify/type-provider-typebox'].map(name => ({ name, allowTypeImports: true, message: 'src/domain/ knows nothing of Fastify (docs/architecture.md)' }))
      }]
    }
  },
  { files: ['plugins/**/*.ts'], rules: above('plugins/', ['**/routes/*', '**/app.js', '**/server.js', '**/server-options.js']) },
  { files: ['routes/**/*.ts'], rules: above('routes/ (which never import each other)', ['./*', '**/routes/*', '**/app.js', '**/server.js', '**/server-options.js']) },
  // The browser's scripts: modules (<script type="module">), run by the browser as they are.
  { files: ['public/**/*.js'], languageOptions: { sourceType: 'module', globals: browserOnly } }
]
