/** Two people on one pipeline: presence, each other's edits live, conflicts explained. */

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BrowserContext, Page } from "playwright-core";

import {
  api,
  firstWorkspace,
  newUser,
  openEditor,
  screenshot,
  signedIn,
  type TestUser,
} from "./support";

const contexts: BrowserContext[] = [];
let ada: TestUser;
let grace: TestUser;
let pipelineId: number;

const DOCUMENT = {
  format: "streamgraph/v1",
  name: "clicks",
  config: { defaultParallelism: 2 },
  nodes: [
    {
      id: 1,
      name: "Source: Clicks",
      operator: "source.sequence",
      params: { from: 1, to: 100 },
      ui: { x: 60, y: 120 },
    },
    { id: 2, name: "Parse", operator: "map", params: { fn: "x" }, ui: { x: 300, y: 120 } },
    { id: 3, name: "Sink: Out", operator: "sink.print", ui: { x: 540, y: 120 } },
  ],
  edges: [
    { source: 1, target: 2, partitioner: "FORWARD" },
    { source: 2, target: 3, partitioner: "FORWARD" },
  ],
};

beforeAll(async () => {
  ada = await newUser("ada");
  grace = await newUser("grace");
  const workspace = await firstWorkspace(ada);
  await api("POST", `workspaces/${workspace.id}/members/`, ada.token, {
    username: grace.username,
    role: "editor",
  });
  const created = await api<{ id: number }>("POST", "pipelines/", ada.token, {
    workspace: workspace.id,
    name: "Clicks",
    document: DOCUMENT,
  });
  pipelineId = created.id;
});

afterAll(async () => {
  await Promise.all(contexts.map((context) => context.close()));
});

async function open(user: TestUser): Promise<Page> {
  const { context, page } = await signedIn(user);
  contexts.push(context);
  await openEditor(page, pipelineId);
  return page;
}

describe("co-editing", () => {
  it("shows who is here and what they select, and applies their edits live", async () => {
    const adaPage = await open(ada);
    const gracePage = await open(grace);

    await adaPage.getByTestId(`presence-${grace.username}`).waitFor();
    await gracePage.getByTestId(`presence-${ada.username}`).waitFor();

    // Ada selects the map: Grace sees Ada's initial on it.
    await adaPage.getByTestId("node-2").click();
    await expect
      .poll(() => gracePage.getByTestId("node-2").locator(".op-node__presence").textContent())
      .toBe(ada.username.slice(0, 1).toUpperCase());

    // Ada renames it; Grace's canvas follows.
    await adaPage.getByTestId("prop-name").fill("Parse clicks");
    await adaPage.getByTestId("prop-name").press("Enter");
    await expect
      .poll(() => gracePage.getByTestId("node-2").textContent())
      .toContain("Parse clicks");
    await screenshot(gracePage, "coediting");
  });

  it("explains an edit that lost a race as a conflict", async () => {
    const adaPage = await open(ada);
    // Grace's page hears nothing from the server while `held`: her edit then starts from
    // the revision before Ada's, exactly as when both press Enter at the same moment.
    const { context, page: gracePage } = await signedIn(grace);
    contexts.push(context);
    let held: (() => void)[] | null = null;
    await gracePage.routeWebSocket(/\/ws\/pipelines\//, (socket) => {
      const server = socket.connectToServer();
      server.onMessage((message) => {
        if (held === null) {
          socket.send(message);
        } else {
          held.push(() => {
            socket.send(message);
          });
        }
      });
    });
    await openEditor(gracePage, pipelineId);
    await adaPage.getByTestId("node-3").click();
    await gracePage.getByTestId("node-3").click();
    const revision = async (page: Page): Promise<string> =>
      (await page.getByText(/Saved · rev \d+/).textContent()) ?? "";
    const before = await revision(adaPage);

    held = [];
    await adaPage.getByTestId("prop-uid").fill("sink-ada");
    await adaPage.getByTestId("prop-uid").press("Enter");
    await expect.poll(() => revision(adaPage)).not.toBe(before);
    await gracePage.getByTestId("prop-uid").fill("sink-grace");
    await gracePage.getByTestId("prop-uid").press("Enter");
    const release = held;
    held = null;
    release.forEach((send) => {
      send();
    });

    // Grace lost the race: she sees why, and both end up with Ada's value.
    await expect
      .poll(async () => (await gracePage.locator(".notice-toast").allTextContents()).join(" "))
      .toMatch(/Someone else changed the same element first/);
    await expect
      .poll(async () => [
        await adaPage.getByTestId("prop-uid").inputValue(),
        await gracePage.getByTestId("prop-uid").inputValue(),
      ])
      .toEqual(["sink-ada", "sink-ada"]);
  });

  it("shows a version a co-editor saved in the history at once", async () => {
    const adaPage = await open(ada);
    const gracePage = await open(grace);
    await adaPage.getByTestId("side-versions").click();
    await adaPage.getByTestId("version-row-working").waitFor();
    const before = await adaPage.locator('[data-testid^="version-row-"]').count();

    await gracePage.getByTestId("side-versions").click();
    await gracePage.getByTestId("version-message").fill("Grace's cut");
    await gracePage.getByTestId("version-save").click();
    await gracePage.getByTestId("version-saved").waitFor();

    // Ada did nothing: her history grows, and a notice says who saved what.
    await expect
      .poll(() => adaPage.locator('[data-testid^="version-row-"]').count())
      .toBe(before + 1);
    await expect
      .poll(async () => (await adaPage.locator(".notice-toast").allTextContents()).join(" "))
      .toContain(`${grace.username} saved version`);
    expect(await adaPage.locator('[data-testid^="version-row-"]').allTextContents()).toContainEqual(
      expect.stringContaining("Grace's cut"),
    );
  });

  it("turns a demoted editor's open editor read-only at once, and closes it on removal", async () => {
    const gracePage = await open(grace);
    await gracePage.getByTestId("node-2").click();
    expect(await gracePage.getByTestId("prop-name").isEnabled()).toBe(true);
    const workspace = await firstWorkspace(ada);
    const member = `workspaces/${workspace.id}/members/${grace.id}/`;

    await api("PATCH", member, ada.token, { role: "viewer" });
    // Without reloading: the open socket is told, and the editor follows.
    await gracePage.locator(".role-pill").waitFor();
    await expect.poll(() => gracePage.getByTestId("prop-name").isDisabled()).toBe(true);
    await expect
      .poll(async () => (await gracePage.locator(".notice-toast").allTextContents()).join(" "))
      .toContain("Your role in this workspace is now viewer");

    await api("DELETE", member, ada.token);
    await expect
      .poll(async () => (await gracePage.locator(".banner").allTextContents()).join(" "))
      .toContain("you are not a member of its workspace (any more)");
  });

  it("stops at a refusal when someone outside the workspace opens the pipeline", async () => {
    const stranger = await newUser("mallory");
    const { context, page } = await signedIn(stranger);
    contexts.push(context);
    const sockets: string[] = [];
    page.on("websocket", (socket) => sockets.push(socket.url()));

    await page.goto(`/pipelines/${pipelineId}`);
    await page
      .getByText(/not found/i)
      .first()
      .waitFor();
    // Reconnects start after 250 ms and double: two seconds would hold several of them.
    await page.waitForTimeout(2000);

    expect(sockets.length).toBeLessThanOrEqual(1);
  });
});
