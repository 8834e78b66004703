import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

import { precompress } from "./scripts/precompress.js";

// The backend (uvicorn on BACKEND_PORT, default 8000) serves the API and the
// websockets; in `npm run dev` Vite serves the app and forwards those paths.
const backend = `127.0.0.1:${process.env.BACKEND_PORT ?? "8000"}`;

export default defineConfig({
  root: import.meta.dirname,
  // Vite's cache lives with the dependencies, which `make clean` removes.
  cacheDir: "../node_modules/.vite",
  // Compressed copies of the build for the server to send as they are.
  plugins: [react(), precompress()],
  worker: { format: "es" },
  build: {
    outDir: "dist",
    emptyOutDir: true,
    // The canvas library and elkjs load with the editor page only.
    chunkSizeWarningLimit: 1600,
  },
  server: {
    port: 5173,
    proxy: {
      "/api": { target: `http://${backend}` },
      "/admin": { target: `http://${backend}` },
      "/ws": { target: `ws://${backend}`, ws: true },
    },
  },
});
