// ESLint for the frontend: typescript-eslint's strict, type-aware rules, zero warnings
// (`npm run lint` passes --max-warnings 0).
import js from "@eslint/js";
import { defineConfig } from "eslint/config";
import reactHooks from "eslint-plugin-react-hooks";
import tseslint from "typescript-eslint";

/** zustand is store/'s own: the rest of the app reads the stores through store/hooks.ts. */
const ZUSTAND = {
  group: ["zustand", "zustand/*"],
  message: "Only store/ uses zustand: import from store/hooks.ts or a store module.",
};

/** What graph/ never imports: it converts documents, edits and plans without any UI. */
const UI_PACKAGES = {
  group: ["react", "react/*", "react-dom", "react-dom/*", "@xyflow/*", "zustand", "zustand/*"],
  message: "graph/ is pure TypeScript: no React, React Flow or zustand.",
};

const GRAPH_OUTSIDE = "graph/ imports only its own modules, so anything may use it.";

/** The ESLint setting that forbids these import patterns (later settings replace earlier). */
function restrictImports(...patterns) {
  return { "no-restricted-imports": ["error", { patterns }] };
}

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
    files: ["src/**/*.{ts,tsx}"],
    ignores: ["src/store/**"],
    rules: restrictImports(ZUSTAND),
  },
  {
    // The canvas is shared by the editor, the diff and the run page: it knows none of them.
    files: ["src/canvas/**"],
    rules: restrictImports(ZUSTAND, {
      regex: "^\\.\\./(app|editor|pages|plan|reviews|runs|store|versions)(/|$)",
      message: "canvas/ serves every page: it imports no page's folder and no store.",
    }),
  },
  {
    files: ["src/graph/**"],
    ignores: ["src/graph/**/*.test.ts"],
    rules: restrictImports(UI_PACKAGES, { regex: "^\\.\\./", message: GRAPH_OUTSIDE }),
  },
  {
    // Its tests build their data with the shared builders.
    files: ["src/graph/**/*.test.ts"],
    rules: restrictImports(UI_PACKAGES, {
      regex: "^\\.\\./(?!test-support/)",
      message: GRAPH_OUTSIDE,
    }),
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
