// ESLint for the frontend: typescript-eslint's strict, type-aware rules, zero warnings
// (`npm run lint` passes --max-warnings 0).
import js from "@eslint/js";
import { defineConfig } from "eslint/config";
import tseslint from "typescript-eslint";

export default defineConfig(
  { ignores: ["dist/"] },
  js.configs.recommended,
  tseslint.configs.strictTypeChecked,
  tseslint.configs.stylisticTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: true,
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      "@typescript-eslint/restrict-template-expressions": ["error", { allowNumber: true }],
    },
  },
  {
    // Tool configuration outside `src`, which the type-aware rules do not cover.
    files: ["**/*.js", "*.config.ts"],
    extends: [tseslint.configs.disableTypeChecked],
  },
);
