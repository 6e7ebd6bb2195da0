// Lint: typescript-eslint's recommended rules without type information (so a run
// stays a few seconds) over source, tests, scripts, bench and examples.
// Formatting is Prettier's job, so no stylistic rule is enabled here.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'dist.tmp-*/**',
      'dist.old-*/**',
      'coverage/**',
      'bench/results/**',
      '.tmp/**',
      'test/**/fixtures/**',
      'examples/**/public/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // Express's API is arity-sensitive: an error handler must declare four
      // parameters even when it does not read `next`, so `_`-prefixed names are
      // deliberate placeholders.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_' },
      ],
      // `interface Request extends Base {}` is how public types stay open to
      // declaration merging (`declare module 'webapp'`), as @types/express does.
      '@typescript-eslint/no-empty-object-type': ['error', { allowInterfaces: 'with-single-extends' }],
      // Header, cookie and path validation match control characters on purpose:
      // those are exactly the bytes that must be rejected or escaped.
      'no-control-regex': 'off',
      // Prettier wraps code at 120 columns but leaves long strings, comments and
      // template literals alone; this catches those. A line that is only a URL, or
      // a regular expression that cannot be split without changing it, may be longer.
      'max-len': ['error', { code: 120, ignoreUrls: true, ignoreRegExpLiterals: true }],
    },
  },
  {
    // src/ compiles to CommonJS, and `require` inside a function is how a module
    // loads on first use (cold start: see src/http/lazy.ts), which a static
    // `import` cannot express.
    files: ['src/**'],
    rules: {
      '@typescript-eslint/no-require-imports': 'off',
      // Node's global `Buffer` is an accessor (Node 20 to 26): every use of the global
      // is a getter call, on paths that run for every request.
      'no-restricted-globals': [
        'error',
        { name: 'Buffer', message: "Import it: `import { Buffer } from 'node:buffer'`." },
      ],
      // A default import of a Node module is emitted as it is into the published .d.ts
      // files, which then fail to compile in projects without esModuleInterop.
      'no-restricted-syntax': [
        'error',
        {
          selector: 'ImportDeclaration[source.value=/^node:/] > ImportDefaultSpecifier',
          message: "Import names or a namespace: `import { x } from 'node:y'` or `import * as y from 'node:y'`.",
        },
      ],
    },
  },
  {
    // The files at Express's module paths (lib/router/layer.js, ...) and the subpath
    // entries (body-parser.js, ...), for resolvers that do not read package.json
    // "exports": each is one `require` of the built file the exports map names.
    files: ['index.js', 'body-parser.js', 'v3.js', 'v3/**', 'middleware.js', 'otel.js', 'lib/**'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // Express's legacy signatures are told apart by how many arguments were
    // passed (`res.send(status, body)`, `res.redirect(url, status)`), which rest
    // parameters cannot express without changing the functions' `length`.
    files: ['src/response/**', 'src/v3/response.ts'],
    rules: { 'prefer-rest-params': 'off' },
  },
  {
    // The CommonJS entries use `export =` with a merged namespace, so that
    // `require('webapp')` is the callable factory and its types still reach
    // `import webapp from 'webapp'` projects.
    files: ['src/index.ts', 'src/body-parser/index.ts', 'src/v3/index.ts', 'src/middleware/index.ts'],
    rules: { '@typescript-eslint/no-namespace': 'off' },
  },
  {
    // The public types mirror @types/express, which uses `any` in these places
    // (locals, `send(body?: any)`, loosely typed middleware); a narrower type
    // there would reject code that compiles against Express's own types.
    // The 3.x middleware's request fields (`req.body`, `req.files`, `req.session`)
    // and error middleware's `err` are `any` there too.
    files: ['src/types/**', 'src/index.ts', 'src/middleware/types.ts', 'src/middleware/error-handler.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // Tests drive internals and oracles (express@3's CommonJS modules, Connect's
    // untyped objects) that have no types worth writing.
    files: ['test/**', 'bench/**', 'scripts/**', 'examples/**', 'docs/**'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-require-imports': 'off',
    },
  },
  {
    // The tests run through tsx's CommonJS hook only (scripts/test.mjs): a dynamic
    // `import()` goes to Node's ES module loader, which cannot resolve a .ts module.
    files: ['test/**/*.ts'],
    ignores: ['test/e2e/**'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          // A relative specifier that does not name a JavaScript file.
          selector: 'ImportExpression[source.type="Literal"][source.value=/^\\.(?!.*\\.[cm]?js$)/]',
          message: "Import test modules statically: `import()` of a .ts file does not resolve under 'tsx/cjs'.",
        },
      ],
    },
  },
);
