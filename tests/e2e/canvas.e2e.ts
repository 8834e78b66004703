/**
 * Working on the canvas: an operator added from the palette lands beside the selected
 * one and is fed by it, in one step undone at once; a node is found by its name; and
 * the diff page draws a self-loop and a back edge where they can be seen.
 */

import { afterAll, describe, expect, it } from "vitest";
import type { BrowserContext, Locator, Page } from "playwright-core";

import { api, firstWorkspace, newUser, openEditor, signedIn, type TestUser } from "./support";

const contexts: BrowserContext[] = [];

afterAll(async () => {
  await Promise.all(contexts.map((context) => context.close()));
});

interface DocumentNode {
  readonly id: number;
  readonly name: string;
  readonly operator: string;
  readonly params?: Record<string, unknown>;
  readonly ui: { readonly x: number; readonly y: number };
}

/** Source -> Twice -> Echo -> Sink, left to right on one row, with room between them. */
function chainDocument(edges: readonly (readonly [number, number, string])[] = []): object {
  const nodes: DocumentNode[] = [
    {
      id: 1,
      name: "Source: Numbers",
      operator: "source.sequence",
      params: { from: 1, to: 9 },
      ui: { x: 40, y: 160 },
    },
    { id: 2, name: "Twice", operator: "map", params: { fn: "x * 2" }, ui: { x: 340, y: 160 } },
    { id: 3, name: "Echo", operator: "map", params: { fn: "x" }, ui: { x: 640, y: 160 } },
    { id: 4, name: "Sink: Out", operator: "sink.collect", ui: { x: 940, y: 160 } },
  ];
  return {
    format: "streamgraph/v1",
    name: "chain",
    config: { defaultParallelism: 1 },
    nodes,
    edges: [
      { source: 1, target: 2, partitioner: "FORWARD" },
      { source: 2, target: 3, partitioner: "FORWARD" },
      { source: 3, target: 4, partitioner: "FORWARD" },
      ...edges.map(([source, target, partitioner]) => ({ source, target, partitioner })),
    ],
  };
}

async function newPipeline(user: TestUser, document: object): Promise<number> {
  const workspace = (await firstWorkspace(user)).id;
  const created = await api<{ id: number }>("POST", "pipelines/", user.token, {
    workspace,
    name: "Canvas",
    document,
  });
  return created.id;
}

async function box(locator: Locator): Promise<{ x: number; y: number; w: number; h: number }> {
  const found = await locator.boundingBox();
  if (found === null) {
    throw new Error("the element is not drawn");
  }
  return { x: found.x, y: found.y, w: found.width, h: found.height };
}

async function revision(page: Page): Promise<number> {
  return Number(await page.getByTestId("canvas").getAttribute("data-revision"));
}

describe("the canvas", () => {
  it("adds an operator beside the selected one, fed by it, and undoes both at once", async () => {
    const user = await newUser("palette");
    const pipeline = await newPipeline(user, chainDocument());
    const { context, page } = await signedIn(user);
    contexts.push(context);
    await openEditor(page, pipeline);
    const before = await revision(page);

    // The sink sends nothing on; Echo does. Select Echo and add a Filter.
    await page.getByTestId("node-3").click();
    await page.getByTestId("palette-filter").click();
    const added = page.getByTestId("node-5");
    await added.waitFor();
    const edge = page.getByTestId("edge-3-5-0-0");
    await edge.waitFor({ state: "attached" });
    await expect.poll(() => revision(page)).toBe(before + 1);
    await page.getByText("Saved · rev").waitFor();
    expect(await revision(page)).toBe(before + 1);

    // Right of Echo, on its row, but clear of the sink there: one row down.
    const echo = await box(page.getByTestId("node-3"));
    const sink = await box(page.getByTestId("node-4"));
    const filter = await box(added);
    expect(filter.x).toBeGreaterThan(echo.x + echo.w);
    expect(filter.y).toBeGreaterThan(sink.y + sink.h);
    // The new operator is selected: the next one goes after it.
    await expect.poll(() => added.getAttribute("class")).toContain("is-selected");

    // One step back removes the node and its edge together, in one more revision.
    await page.keyboard.press("Control+z");
    await expect.poll(() => added.count()).toBe(0);
    expect(await edge.count()).toBe(0);
    await expect.poll(() => revision(page)).toBe(before + 2);
    expect(await page.locator(".react-flow__node-operator").count()).toBe(4);
    expect(await page.locator(".react-flow__edge").count()).toBe(3);
  });

  it("finds a node by its name, selects it and brings it to the middle", async () => {
    const user = await newUser("finder");
    const pipeline = await newPipeline(user, chainDocument());
    const { context, page } = await signedIn(user);
    contexts.push(context);
    await openEditor(page, pipeline);

    await page.locator(".react-flow__pane").click({ position: { x: 20, y: 20 } });
    await page.keyboard.press("Control+f");
    const input = page.getByTestId("find-node");
    await input.fill("echo");
    await page.getByTestId("find-match-3").waitFor();
    expect(await page.locator(".find-box__match").count()).toBe(1);
    await input.press("Enter");
    await expect.poll(() => input.count()).toBe(0);

    const node = page.getByTestId("node-3");
    await expect.poll(() => node.getAttribute("class")).toContain("is-selected");
    // Centred on the canvas once the view has moved.
    const canvas = await box(page.getByTestId("canvas"));
    await expect
      .poll(async () => {
        const found = await box(node);
        const dx = found.x + found.w / 2 - (canvas.x + canvas.w / 2);
        const dy = found.y + found.h / 2 - (canvas.y + canvas.h / 2);
        return Math.hypot(dx, dy) < 12;
      })
      .toBe(true);

    // The arrows move through the matches, Escape closes the box and keeps the selection.
    await page.keyboard.press("/");
    await input.fill("map");
    await page.getByTestId("find-match-2").waitFor();
    await input.press("ArrowDown");
    expect(await page.getByTestId("find-match-3").getAttribute("aria-selected")).toBe("true");
    await input.press("Escape");
    await expect.poll(() => input.count()).toBe(0);
    expect(await node.getAttribute("class")).toContain("is-selected");
  });

  it("lays out nodes without positions in one revision, and undoes it in one more", async () => {
    const user = await newUser("layout");
    const placed = chainDocument() as { nodes: Record<string, unknown>[] };
    // As an imported plan: no node has a position, the canvas draws them on its grid.
    const pipeline = await newPipeline(user, {
      ...placed,
      nodes: placed.nodes.map(({ ui: _ui, ...node }) => node),
    });
    const { context, page } = await signedIn(user);
    contexts.push(context);
    await openEditor(page, pipeline);
    const before = await revision(page);
    const where = (): Promise<string[]> =>
      page
        .locator(".react-flow__node-operator")
        .evaluateAll((nodes) => nodes.map((node) => (node as HTMLElement).style.transform));
    const grid = await where();

    await page.getByTestId("auto-layout").click();
    await expect.poll(() => revision(page)).toBe(before + 1);
    await expect.poll(where).not.toEqual(grid);

    await page.locator(".react-flow__pane").click({ position: { x: 20, y: 20 } });
    await page.keyboard.press("Control+z");
    await expect.poll(where).toEqual(grid);
    await page.getByText("Saved · rev").waitFor();
    expect(await revision(page)).toBe(before + 2);
    const stored = await api<{ document: { nodes: { ui?: object }[] } }>(
      "GET",
      `pipelines/${pipeline}/`,
      user.token,
    );
    expect(stored.document.nodes.map((node) => node.ui ?? {})).toEqual([{}, {}, {}, {}]);
  });

  it("draws a self-loop above its operator and a back edge below on the diff page", async () => {
    const user = await newUser("loops");
    const pipeline = await newPipeline(user, chainDocument());
    await api("POST", `pipelines/${pipeline}/versions/`, user.token, { message: "chain" });
    await api("PATCH", `pipelines/${pipeline}/`, user.token, {
      document: chainDocument([
        [3, 2, "REBALANCE"],
        [3, 3, "REBALANCE"],
      ]),
    });
    await api("POST", `pipelines/${pipeline}/versions/`, user.token, { message: "loops" });
    const { context, page } = await signedIn(user);
    contexts.push(context);
    await page.goto(`/pipelines/${pipeline}/diff?from=1&to=2`);
    const loop = page.getByTestId("diff-edge-3-3-0-0");
    const back = page.getByTestId("diff-edge-3-2-0-0");
    await loop.waitFor();
    await back.waitFor();

    const echo = await box(page.getByTestId("diff-node-3"));
    const twice = await box(page.getByTestId("diff-node-2"));
    const bottom = Math.max(echo.y + echo.h, twice.y + twice.h);
    // The loop arcs above its operator, the back edge below both, each with its label.
    const loopLine = await box(page.locator('[id="new:3-3-0-0"]'));
    const backLine = await box(page.locator('[id="new:3-2-0-0"]'));
    expect(loopLine.y).toBeLessThan(echo.y);
    expect(backLine.y + backLine.h).toBeGreaterThan(bottom);
    const loopLabel = await box(loop);
    const backLabel = await box(back);
    expect(loopLabel.y + loopLabel.h).toBeLessThan(echo.y);
    expect(backLabel.y).toBeGreaterThan(bottom);
  });
});
