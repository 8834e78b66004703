/**
 * Reviewing a change: save a version, change the pipeline so an operator's state
 * cannot be restored, save again, and read the diff with its savepoint verdict.
 */

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BrowserContext } from "playwright-core";

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
let pipelineId: number;

// The counter has no uid: its OperatorID is derived from its place in the graph.
const DOCUMENT = {
  format: "streamgraph/v1",
  name: "orders",
  config: { defaultParallelism: 2 },
  nodes: [
    {
      id: 1,
      name: "Source: Orders",
      operator: "source.sequence",
      params: { from: 1, to: 100 },
      uid: "orders",
      ui: { x: 40, y: 120 },
    },
    { id: 2, name: "Amount", operator: "map", params: { fn: "x * 10" }, ui: { x: 280, y: 120 } },
    { id: 3, name: "Total", operator: "reduce", params: { fn: "a + b" }, ui: { x: 520, y: 120 } },
    { id: 4, name: "Sink: Out", operator: "sink.print", ui: { x: 760, y: 120 } },
  ],
  // As a DataStream program connects them: no partitioner chosen but the keyBy, so
  // Flink picks FORWARD or REBALANCE from the parallelism on each side.
  edges: [
    { source: 1, target: 2, partitioner: null },
    { source: 2, target: 3, partitioner: "HASH", key: { fn: "x % 7" } },
    { source: 3, target: 4, partitioner: null },
  ],
};

beforeAll(async () => {
  ada = await newUser("ada");
  const workspace = await firstWorkspace(ada);
  const created = await api<{ id: number }>("POST", "pipelines/", ada.token, {
    workspace: workspace.id,
    name: "Orders",
    document: DOCUMENT,
  });
  pipelineId = created.id;
});

afterAll(async () => {
  await Promise.all(contexts.map((context) => context.close()));
});

describe("versions", () => {
  it("saves two versions and shows which state a savepoint would lose", async () => {
    const { context, page } = await signedIn(ada);
    contexts.push(context);
    await openEditor(page, pipelineId);

    await page.getByTestId("side-versions").click();
    await page.getByTestId("version-message").fill("First cut");
    await page.getByTestId("version-save").click();
    await page.getByTestId("version-row-1").waitFor();
    expect(await page.getByTestId("version-row-1").textContent()).toContain("First cut");

    // A new operator between the source and the map shifts every hash downstream of it:
    // the counter's state, saved under its old OperatorID, has nowhere to go.
    await page.getByTestId("side-properties").click();
    await page.getByTestId("node-2").click();
    await page.getByTestId("prop-uid").fill("amount");
    await page.getByTestId("prop-uid").press("Enter");
    await page.getByText(/Saved · rev \d+/).waitFor();
    await page.getByTestId("node-3").click();
    await page.getByTestId("prop-parallelism").fill("4");
    await page.getByTestId("prop-parallelism").press("Enter");
    await expect.poll(() => page.getByTestId("node-3-parallelism").textContent()).toBe("p4");
    await page.getByText(/Saved · rev \d+/).waitFor();

    await page.getByTestId("side-versions").click();
    await page.getByTestId("version-message").fill("Name the amount, widen the total");
    await page.getByTestId("version-save").click();
    await page.getByTestId("version-row-2").waitFor();
    await screenshot(page, "versions");

    await page.getByTestId("version-pick-from-1").click();
    await page.getByTestId("version-pick-to-2").click();
    await page.getByTestId("diff-button").click();
    await page.waitForURL(/\/pipelines\/\d+\/diff\?from=1&to=2$/);
    const banner = page.getByTestId("verdict-banner");
    await banner.waitFor();
    expect(await banner.getAttribute("data-tone")).toBe("lost");
    // The state engine's sentence: the counter's state, if it holds any, has no operator.
    expect(await banner.textContent()).toMatch(/started as version 2: fails if .* holds state/);

    // The map got a uid: its OperatorID changes, and so does the counter's downstream of it.
    await expect
      .poll(() => page.getByTestId("savepoint-row-3").getAttribute("data-verdict"))
      .toBe("lost");
    const causes = (await page.getByTestId("savepoint-row-3").textContent()) ?? "";
    expect(causes.length).toBeGreaterThan(0);
    await expect
      .poll(() => page.getByTestId("diff-node-2").getAttribute("class"))
      .toMatch(/changed/);
    // The savepoint table fits its panel: nothing to scroll sideways for.
    const side = page.locator(".diff-page__side");
    expect(await side.evaluate((element) => element.scrollWidth - element.clientWidth)).toBe(0);
    await screenshot(page, "diff");

    await page.getByTestId("diff-close").click();
    await page.waitForURL(/\/pipelines\/\d+$/);
  });
});
