// Lint: typescript-eslint's recommended rules (no type information, so a run stays
// a few seconds) over the source, tests, scripts, bench and examples. Formatting is
// Prettier's job, so no stylistic rule is enabled here.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'bench/results/**', 'coverage/**', '.tmp/**', 'test/**/fixtures/**/*.js'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
  },
);
