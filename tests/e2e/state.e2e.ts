/**
 * State safety: upload a real Flink savepoint in the State tab, see the working copy
 * restore from it, change the working copy so that Sum's OperatorID changes, see the
 * verdict fail on Sum's state, and map that state back with one undoable edit.
 */

import { readFileSync } from "node:fs";
import { resolve } from "node:path";

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

// Real Flink 2.3: a savepoint of counting.v1 (Sum is a keyed reduce, node 5, no uid).
const SAVEPOINTS = resolve(import.meta.dirname, "../compiler/data/savepoints");
const DOCUMENT: unknown = JSON.parse(
  readFileSync(resolve(SAVEPOINTS, "counting.v1.streamgraph.json"), "utf8"),
);
const SAVEPOINT = resolve(SAVEPOINTS, "counting.v1.savepoint");
// Sum's OperatorID in the savepoint, which real Flink names when it refuses the change.
const SUM_ID = "c27dcf7b54ef6bfd6cff02ca8870b681";

const contexts: BrowserContext[] = [];
let ada: TestUser;
let bob: TestUser;
let pipelineId: number;

beforeAll(async () => {
  ada = await newUser("ada");
  bob = await newUser("bob");
  const workspace = await firstWorkspace(ada);
  await api("POST", `workspaces/${workspace.id}/members/`, ada.token, {
    username: bob.username,
    role: "viewer",
  });
  const created = await api<{ id: number }>("POST", "pipelines/", ada.token, {
    workspace: workspace.id,
    name: "Counting",
    document: DOCUMENT,
  });
  pipelineId = created.id;
});

afterAll(async () => {
  await Promise.all(contexts.map((context) => context.close()));
});

function verdictTitle(page: Page): Promise<string | null> {
  return page.getByTestId("restore-verdict-title").textContent();
}

function marker(page: Page, node: number): Promise<string | null> {
  return page.getByTestId(`state-marker-${node}`).getAttribute("data-kind");
}

describe("state", () => {
  it("checks the working copy against a savepoint as it changes, and maps lost state", async () => {
    const { context, page } = await signedIn(ada);
    contexts.push(context);
    await openEditor(page, pipelineId);
    await page.getByTestId("side-state").click();

    // A file that is no savepoint is refused where it was given, saying where and why.
    const upload = page.getByTestId("savepoint-upload");
    await upload.waitFor();
    await page.getByTestId("savepoint-file").setInputFiles(resolve(SAVEPOINTS, "README.md"));
    await page.getByTestId("savepoint-label").fill("not a savepoint");
    await page.getByTestId("savepoint-upload-submit").click();
    await expect
      .poll(() => page.getByTestId("savepoint-upload-error").textContent())
      .toContain("The file is not a Flink savepoint's _metadata: byte 0: expected");

    await page.getByTestId("savepoint-file").setInputFiles(SAVEPOINT);
    await page.getByTestId("savepoint-label").fill("production 2026-11-20");
    await page.getByTestId("savepoint-upload-submit").click();
    const list = page.getByTestId("savepoint-list");
    await expect.poll(() => list.textContent()).toContain("production 2026-11-20");
    expect(await list.textContent()).toContain("current");
    expect(await list.textContent()).toContain("6 operators");

    // The working copy is what wrote the savepoint: every state goes back where it was.
    await expect.poll(() => verdictTitle(page)).toBe("Restores");
    expect(await page.getByTestId("restore-verdict").getAttribute("data-tone")).toBe("restores");
    expect(await page.getByTestId(`restore-row-${SUM_ID}`).getAttribute("data-outcome")).toBe(
      "restored",
    );
    await expect.poll(() => marker(page, 5)).toBe("restored");
    await screenshot(page, "state-restores");

    // Sum at parallelism 3: its FORWARD edge to Drop cannot stay, so nothing compiles.
    await page.getByTestId("side-properties").click();
    await page.getByTestId("node-5").click();
    await page.getByTestId("prop-parallelism").fill("3");
    await page.getByTestId("prop-parallelism").press("Enter");
    await expect.poll(() => page.getByTestId("node-5-parallelism").textContent()).toBe("p3");
    await page.getByText(/Saved · rev \d+/).waitFor();
    await page.getByTestId("side-state").click();
    await expect
      .poll(() => page.getByTestId("restore-verdict").getAttribute("data-tone"))
      .toBe("not-compiled");
    expect(await page.getByTestId("restore-verdict").textContent()).toContain(
      "The working copy does not compile",
    );

    // Flink's default partitioner there: Sum's chain breaks, and with it Sum's OperatorID.
    await page.getByTestId("side-properties").click();
    await page.getByTestId("edge-5-6-0-0").click();
    await page.getByTestId("edge-partitioner").selectOption("DEFAULT");
    await page.getByText(/Saved · rev \d+/).waitFor();
    await page.getByTestId("side-state").click();
    await expect
      .poll(() => verdictTitle(page))
      .toBe("Fails: state of Sum (c27dcf7b...) has no operator in this version");
    const verdict = (await page.getByTestId("restore-verdict").textContent()) ?? "";
    expect(verdict).toContain("It would restore allowing non-restored state");
    expect(await page.getByTestId(`restore-row-${SUM_ID}`).getAttribute("data-outcome")).toBe(
      "lost",
    );
    await expect.poll(() => marker(page, 5)).toBe("lost");
    expect(await marker(page, 1)).toBe("restored");

    // Map lost state: Sum is suggested to take its old state back through its uidHash.
    const select = page.getByTestId(`map-lost-select-${SUM_ID}`);
    expect(await select.inputValue()).toBe("5");
    expect(await page.getByTestId("map-lost-lines").textContent()).toBe(
      "Sum (5) takes the state saved under c27dcf7b…: its uidHash is set to that ID, the " +
        "repair Flink's documentation prescribes.",
    );
    await screenshot(page, "state-fails");
    await page.getByTestId("map-lost-apply").click();
    await expect.poll(() => verdictTitle(page)).toBe("Restores");
    await expect.poll(() => marker(page, 5)).toBe("restored");
    const stored = await api<{ document: { nodes: { id: number; uidHash?: string | null }[] } }>(
      "GET",
      `pipelines/${pipelineId}/`,
      ada.token,
    );
    expect(stored.document.nodes.find((node) => node.id === 5)?.uidHash).toBe(SUM_ID);
    expect(await page.getByTestId(`restore-row-${SUM_ID}`).textContent()).toContain(
      "through its uidHash",
    );

    // One edit: one undo takes the mapping back, and the verdict with it.
    await page.locator(".react-flow__pane").click({ position: { x: 20, y: 20 } });
    await page.keyboard.press("Control+z");
    await expect
      .poll(() => verdictTitle(page))
      .toBe("Fails: state of Sum (c27dcf7b...) has no operator in this version");
    await page.keyboard.press("Control+Shift+z");
    await expect.poll(() => verdictTitle(page)).toBe("Restores");

    // Leaving the tab takes its marks off the canvas.
    await page.getByTestId("side-properties").click();
    await expect.poll(() => page.getByTestId("state-marker-5").count()).toBe(0);
  });

  it("lets a viewer check, and offers no upload, change or mapping", async () => {
    // Sum's chain broken again, as the team's editor left it.
    const changed: unknown = JSON.parse(
      readFileSync(resolve(SAVEPOINTS, "counting--sum-parallelism.streamgraph.json"), "utf8"),
    );
    await api("PATCH", `pipelines/${pipelineId}/`, ada.token, { document: changed });

    const { context, page } = await signedIn(bob);
    contexts.push(context);
    await openEditor(page, pipelineId);
    await page.getByTestId("side-state").click();
    await expect
      .poll(() => verdictTitle(page))
      .toBe("Fails: state of Sum (c27dcf7b...) has no operator in this version");
    expect(await page.getByTestId("savepoint-upload-toggle").count()).toBe(0);
    expect(await page.getByTestId("savepoint-upload").count()).toBe(0);
    expect(await page.locator('[data-testid^="savepoint-delete-"]').count()).toBe(0);
    expect(await page.getByTestId(`map-lost-select-${SUM_ID}`).isDisabled()).toBe(true);
    expect(await page.getByTestId("map-lost-apply").count()).toBe(0);

    // Allowing non-restored state is a question a viewer may ask too.
    await page.getByTestId("state-allow-non-restored").check();
    await expect.poll(() => verdictTitle(page)).toBe("Restores, dropping the state of 1 operator");
    expect(await page.getByTestId("restore-verdict").getAttribute("data-tone")).toBe("dropping");
  });
});
