import { defineConfig } from "vitest/config";

export default defineConfig({
  // Vite's cache lives with the dependencies, which `make clean` removes.
  cacheDir: "../node_modules/.vite",
  test: {
    include: ["src/**/*.test.ts"],
    // Worker threads, not processes: the tests need no process of their own, and the
    // run takes a quarter less CPU.
    pool: "threads",
  },
});
