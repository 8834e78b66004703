import { defineConfig } from "vitest/config";

// The canvas benchmark: the real server and one headless Chromium, started by the
// end-to-end suite's globalSetup. It prints figures; it asserts nothing about speed.
export default defineConfig({
  root: import.meta.dirname,
  cacheDir: "../../node_modules/.vite",
  test: {
    include: ["**/*.bench.e2e.ts"],
    globalSetup: ["../../tests/e2e/globalSetup.ts"],
    environment: "node",
    fileParallelism: false,
    testTimeout: 600_000,
    hookTimeout: 120_000,
  },
});
