import { defineConfig } from "vitest/config";

// End-to-end tests: the real server (uvicorn, Redis, a fresh SQLite database)
// and one headless Chromium, shared by every test file, started in globalSetup.
export default defineConfig({
  root: import.meta.dirname,
  cacheDir: "../../node_modules/.vite",
  test: {
    include: ["**/*.e2e.ts"],
    globalSetup: ["./globalSetup.ts"],
    environment: "node",
    // Browser pages and the server share two cores: one file at a time.
    fileParallelism: false,
    testTimeout: 60_000,
    // A page under load (two cores, the server, Spark and Chromium) may take seconds to
    // show what a poll waits for; the default second is for unit tests.
    expect: { poll: { timeout: 10_000 } },
    hookTimeout: 120_000,
  },
});
