// ESLint for the frontend: typescript-eslint's strict, type-aware rules, zero warnings
// (`npm run lint` passes --max-warnings 0).
import js from "@eslint/js";
import { defineConfig } from "eslint/config";
import reactHooks from "eslint-plugin-react-hooks";
import tseslint from "typescript-eslint";

export default defineConfig(
  { ignores: ["dist/"] },
  js.configs.recommended,
  tseslint.configs.strictTypeChecked,
  tseslint.configs.stylisticTypeChecked,
  reactHooks.configs.flat["recommended-latest"],
  {
    languageOptions: {
      parserOptions: {
        projectService: true,
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      "@typescript-eslint/restrict-template-expressions": ["error", { allowNumber: true }],
      // Pages load their data in effects and set it when the request resolves.
      "react-hooks/set-state-in-effect": "off",
      // Event handlers passed as JSX props may return promises the handler owns.
      "@typescript-eslint/no-misused-promises": [
        "error",
        { checksVoidReturn: { attributes: false } },
      ],
    },
  },
  {
    // Tool configuration outside `src`, which the type-aware rules do not cover.
    files: ["**/*.js", "*.config.ts"],
    extends: [tseslint.configs.disableTypeChecked],
  },
  {
    // Build scripts run in Node.
    files: ["scripts/**/*.js"],
    languageOptions: { globals: { console: "readonly", process: "readonly" } },
  },
);
