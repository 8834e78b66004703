// A Vite plugin that writes a brotli (`.br`) and a gzip (`.gz`) copy beside every
// text file of the build, so the server (WhiteNoise, `backend/config/frontend.py`)
// sends compressed files without compressing on a request's time.

import { readdir, readFile, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";

// Below this, the headers of a compressed response outweigh what it saves.
const MIN_BYTES = 512;
const TEXT = /\.(html|js|mjs|css|json|map|svg|txt|xml|webmanifest|wasm|ttf|otf|ico)$/i;

/** The compressed copies of one file worth keeping: each only if it is smaller. */
export function compressedCopies(data) {
  if (data.length < MIN_BYTES) return [];
  const copies = [
    [
      ".br",
      brotliCompressSync(data, {
        params: {
          [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
          [constants.BROTLI_PARAM_SIZE_HINT]: data.length,
        },
      }),
    ],
    [".gz", gzipSync(data, { level: 9 })],
  ];
  return copies.filter(([, body]) => body.length < data.length);
}

async function* files(folder) {
  for (const entry of await readdir(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) yield* files(path);
    else if (entry.isFile()) yield path;
  }
}

/** Compress every text file under `outDir` once the bundle is written. */
export function precompress() {
  let outDir = "";
  return {
    name: "precompress",
    apply: "build",
    configResolved(config) {
      outDir = resolve(config.root, config.build.outDir);
    },
    async closeBundle() {
      for await (const path of files(outDir)) {
        if (!TEXT.test(path)) continue;
        const data = await readFile(path);
        for (const [suffix, body] of compressedCopies(data)) {
          await writeFile(path + suffix, body);
        }
      }
    },
  };
}
