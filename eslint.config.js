import neostandard from 'neostandard'

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
  { files: ['routes/**/*.ts'], rules: above('routes/ (which never import each other)', ['./*', '**/routes/*', '**/app.js', '**/server.js', '**/server-options.js']) }
]
