import { defineConfig } from "vitest/config";

export default defineConfig({
  // Vite's cache lives with the dependencies, which `make clean` removes.
  cacheDir: "../node_modules/.vite",
  test: {
    include: ["src/**/*.test.ts"],
  },
});
