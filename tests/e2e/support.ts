/** What the end-to-end tests share: the browser, users made through the API, page helpers. */

import { randomUUID } from "node:crypto";
import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";

import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { inject } from "vitest";

export const baseUrl = inject("baseUrl");
const SCREENSHOTS = resolve(import.meta.dirname, "../../docs/screenshots");

let browser: Browser | null = null;

/** The shared Chromium (one per test file's worker, connected to the one server). */
export async function sharedBrowser(): Promise<Browser> {
  browser ??= await chromium.connect(inject("browserEndpoint"));
  return browser;
}

export interface TestUser {
  readonly username: string;
  readonly password: string;
  readonly token: string;
  readonly id: number;
}

export async function api<T>(
  method: string,
  path: string,
  token: string | null,
  body?: unknown,
): Promise<T> {
  const headers: Record<string, string> = { "Content-Type": "application/json" };
  if (token !== null) {
    headers.Authorization = `Token ${token}`;
  }
  const response = await fetch(`${baseUrl}/api/${path}`, {
    method,
    headers,
    body: body === undefined ? null : JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) {
    throw new Error(`${method} ${path}: ${response.status} ${text}`);
  }
  return (text === "" ? null : JSON.parse(text)) as T;
}

/** A new user with a workspace of their own, registered through the API. */
export async function newUser(prefix = "user"): Promise<TestUser> {
  const username = `${prefix}-${randomUUID().slice(0, 8)}`;
  const password = "correct horse battery staple";
  const made = await api<{ token: string; user: { id: number } }>("POST", "auth/register/", null, {
    username,
    password,
  });
  return { username, password, token: made.token, id: made.user.id };
}

export async function firstWorkspace(user: TestUser): Promise<{ id: number; name: string }> {
  const workspaces = await api<{ id: number; name: string }[]>("GET", "workspaces/", user.token);
  const first = workspaces[0];
  if (first === undefined) {
    throw new Error(`${user.username} has no workspace`);
  }
  return first;
}

/** A browser context at 1280x800 already signed in as `user` (token in localStorage). */
export async function signedIn(user: TestUser): Promise<{ context: BrowserContext; page: Page }> {
  const context = await (
    await sharedBrowser()
  ).newContext({
    viewport: { width: 1280, height: 800 },
    baseURL: baseUrl,
  });
  await context.addInitScript((token: string) => {
    window.localStorage.setItem("streamgraph-studio.token", token);
  }, user.token);
  const page = await context.newPage();
  return { context, page };
}

/** Save a screenshot under docs/screenshots when UPDATE_SCREENSHOTS is set. */
export async function screenshot(page: Page, name: string): Promise<void> {
  if (process.env.UPDATE_SCREENSHOTS === undefined) {
    return;
  }
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`) });
}

/** Open a pipeline in the editor and wait for its first snapshot. */
export async function openEditor(page: Page, pipelineId: number): Promise<void> {
  await page.goto(`/pipelines/${pipelineId}`);
  await page.getByTestId("canvas").waitFor();
  await page.getByText(/Saved · rev \d+/).waitFor();
}

/** Drag from a node's output handle to another node's input handle. */
export async function connect(
  page: Page,
  source: number,
  target: number,
  input = "in",
): Promise<void> {
  const from = page.locator(`.react-flow__node[data-id="${source}"] .react-flow__handle.source`);
  const to = page.locator(
    `.react-flow__node[data-id="${target}"] .react-flow__handle.target[data-handleid="${input}"]`,
  );
  const a = await from.boundingBox();
  const b = await to.boundingBox();
  if (a === null || b === null) {
    throw new Error(`no handles to connect ${source} -> ${target}`);
  }
  await page.mouse.move(a.x + a.width / 2, a.y + a.height / 2);
  await page.mouse.down();
  await page.mouse.move(b.x + b.width / 2, b.y + b.height / 2, { steps: 8 });
  await page.mouse.up();
}
