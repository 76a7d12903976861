// ESLint for the Mini App's ES modules and their unit tests (`npm run lint`, run by CI).
import js from "@eslint/js";
import globals from "globals";

export default [
  { ignores: ["node_modules/", ".venv/", "test-output/"] },
  js.configs.recommended,
  {
    files: ["bot/web/static/**/*.js"],
    languageOptions: { ecmaVersion: 2022, sourceType: "module", globals: globals.browser },
  },
  {
    // Run in the page by the browser test: function bodies (Selenium wraps them) or scripts.
    files: ["tests/web/browser/**/*.js"],
    languageOptions: {
      ecmaVersion: 2022,
      sourceType: "script",
      parserOptions: { ecmaFeatures: { globalReturn: true } },
      globals: globals.browser,
    },
  },
  {
    files: ["tests/web/js/**/*.js", "eslint.config.js"],
    languageOptions: { ecmaVersion: 2022, sourceType: "module", globals: globals.node },
  },
  {
    rules: {
      "no-unused-vars": ["error", { args: "after-used", argsIgnorePattern: "^_" }],
      eqeqeq: "error",
      "prefer-const": "error",
      "no-var": "error",
      complexity: ["error", 12],
      "max-lines-per-function": ["error", { max: 60, skipBlankLines: true, skipComments: true }],
    },
  },
];
