/**
 * Starts what the end-to-end tests drive: the product's server exactly as
 * `make run` starts it (migrations, then `manage.py serve`) on a free port with
 * a database of its own, and one headless Chromium (Debian's package) that
 * every test connects to.
 */

import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

import { chromium, type BrowserServer } from "playwright-core";
import type { TestProject } from "vitest/node";

const REPO = resolve(import.meta.dirname, "../..");
const PYTHON = process.env.PYTHON ?? join(REPO, ".venv", "bin", "python");
export const CHROMIUM = process.env.CHROMIUM ?? "/usr/bin/chromium";

/** Flags for a headless Chromium on a machine without a network or a GPU. */
export const CHROMIUM_ARGS = [
  "--headless=new",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-dev-shm-usage",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--disable-extensions",
];

declare module "vitest" {
  export interface ProvidedContext {
    baseUrl: string;
    browserEndpoint: string;
  }
}

function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const probe = createServer();
    probe.once("error", fail);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      probe.close(() => {
        done(typeof address === "object" && address !== null ? address.port : 0);
      });
    });
  });
}

async function waitForHealth(
  url: string,
  server: ChildProcess,
  output: () => string,
): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (server.exitCode !== null) {
      throw new Error(`the server exited with ${server.exitCode}:\n${output()}`);
    }
    try {
      const response = await fetch(`${url}/api/health/`);
      if (response.ok) {
        return;
      }
    } catch {
      // Not listening yet.
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`the server did not answer at ${url} within 60 s:\n${output()}`);
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  if (!existsSync(join(REPO, "frontend", "dist", "index.html"))) {
    throw new Error("frontend/dist is missing: build the frontend first (npm run build)");
  }
  if (!existsSync(CHROMIUM)) {
    throw new Error(`no Chromium at ${CHROMIUM}: install Debian's package 'chromium'`);
  }
  const folder = mkdtempSync(join(tmpdir(), "studio-e2e-"));
  const port = await freePort();
  const env = {
    ...process.env,
    DATABASE_URL: `sqlite:///${join(folder, "e2e.sqlite3")}`,
    PASSWORD_HASHERS: "django.contrib.auth.hashers.MD5PasswordHasher",
    // Production settings, as a deployment runs them: they only need a key.
    SECRET_KEY: "e2e-only-secret-key-0123456789abcdef0123456789abcdef",
    // The suite registers its users from one address, more than 20 in a minute when it runs
    // fast; the limit itself is tested in tests/backend/test_auth.py.
    AUTH_ATTEMPTS_PER_MINUTE: "1000",
    // A second cluster owners may choose (its worker starts Spark only if a run needs it).
    SPARK_CLUSTERS: JSON.stringify({ small: { master: "local[1]", maxParallelism: 1 } }),
  };
  const migrate = spawnSync(PYTHON, ["manage.py", "migrate", "--noinput"], {
    cwd: REPO,
    env,
    encoding: "utf8",
  });
  if (migrate.status !== 0) {
    throw new Error(`migrate failed:\n${migrate.stdout}\n${migrate.stderr}`);
  }
  let log = "";
  const server = spawn(PYTHON, ["manage.py", "serve", "--port", String(port)], {
    cwd: REPO,
    env,
    detached: true,
  });
  server.stdout.on("data", (chunk: Buffer) => (log += chunk.toString()));
  server.stderr.on("data", (chunk: Buffer) => (log += chunk.toString()));
  const baseUrl = `http://127.0.0.1:${port}`;
  let browser: BrowserServer | null = null;
  const stop = async (): Promise<void> => {
    await browser?.close();
    if (server.pid !== undefined && server.exitCode === null) {
      // The serve command stops its uvicorn and Celery children on SIGTERM.
      process.kill(-server.pid, "SIGTERM");
      await new Promise((r) => setTimeout(r, 300));
    }
    // The throwaway database's presence, cache and queue names go with it.
    spawnSync(PYTHON, ["manage.py", "forget_redis_namespace"], { cwd: REPO, env });
    rmSync(folder, { recursive: true, force: true });
  };
  try {
    await waitForHealth(baseUrl, server, () => log);
    browser = await chromium.launchServer({
      executablePath: CHROMIUM,
      args: CHROMIUM_ARGS,
      headless: true,
    });
  } catch (error) {
    await stop();
    throw error;
  }
  project.provide("baseUrl", baseUrl);
  project.provide("browserEndpoint", browser.wsEndpoint());
  return stop;
}
