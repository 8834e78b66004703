/**
 * The JobGraph view beside the palette and the side panel, at ordinary window sizes:
 * a row of three vertices shows whole, and a longer row scrolls sideways, with
 * buttons that say how many columns are out of view and bring them in.
 */

import { afterAll, describe, expect, it } from "vitest";
import type { BrowserContext, Page } from "playwright-core";

import { api, firstWorkspace, newUser, openEditor, screenshot, signedIn } from "./support";

const contexts: BrowserContext[] = [];

afterAll(async () => {
  await Promise.all(contexts.map((context) => context.close()));
});

/** A source, `length - 2` maps and a sink in a row, none chained: one column each. */
function row(length: number): object {
  const last = length;
  return {
    format: "streamgraph/v1",
    name: `row of ${length}`,
    config: { defaultParallelism: 1 },
    nodes: Array.from({ length }, (_, index) => {
      const id = index + 1;
      const common = { id, parallelism: id, ui: { x: 40 + 240 * index, y: 160 } };
      if (id === 1) {
        return {
          ...common,
          name: "Source: Numbers",
          operator: "source.sequence",
          params: { from: 1, to: 9 },
        };
      }
      if (id === last) {
        return { ...common, name: "Sink: Out", operator: "sink.collect" };
      }
      return { ...common, name: `Step ${id}`, operator: "map", params: { fn: "x" } };
    }),
    edges: Array.from({ length: length - 1 }, (_, index) => ({
      source: index + 1,
      target: index + 2,
      partitioner: "REBALANCE",
    })),
  };
}

async function openJobGraph(length: number, width: number, height: number): Promise<Page> {
  const user = await newUser("jobgraph");
  const workspace = (await firstWorkspace(user)).id;
  const created = await api<{ id: number }>("POST", "pipelines/", user.token, {
    workspace,
    name: `Row of ${length}`,
    document: row(length),
  });
  const { context, page } = await signedIn(user);
  contexts.push(context);
  await page.setViewportSize({ width, height });
  await openEditor(page, created.id);
  await page.getByTestId("side-properties").waitFor();
  await page.getByTestId("view-jobgraph").click();
  await page.getByTestId(`jobgraph-vertex-${length}`).waitFor();
  return page;
}

/** Whether the vertex card of `head` lies whole inside what the view shows of the graph. */
async function shownWhole(page: Page, head: number): Promise<boolean> {
  return page.evaluate((id) => {
    const card = document.querySelector(`[data-testid="jobgraph-vertex-${id}"]`);
    const scroller = document.querySelector('[data-testid="jobgraph-scroll"]');
    const view = scroller?.closest(".view-overlay");
    if (card === null || scroller === null || view === null || view === undefined) {
      return false;
    }
    const box = card.getBoundingClientRect();
    return [scroller, view].every((element) => {
      const frame = element.getBoundingClientRect();
      return (
        box.left >= frame.left - 0.5 &&
        box.right <= frame.right + 0.5 &&
        box.top >= frame.top - 0.5 &&
        box.bottom <= frame.bottom + 0.5
      );
    });
  }, head);
}

async function cardWidth(page: Page, head: number): Promise<number> {
  return (await page.getByTestId(`jobgraph-vertex-${head}`).boundingBox())?.width ?? 0;
}

describe("the JobGraph view", () => {
  for (const [width, height] of [
    [1280, 800],
    [1440, 900],
  ] as const) {
    it(`shows a row of three vertices whole at ${width}x${height}`, async () => {
      const page = await openJobGraph(3, width, height);

      for (const head of [1, 2, 3]) {
        await expect.poll(() => shownWhole(page, head)).toBe(true);
        expect(await cardWidth(page, head)).toBeGreaterThanOrEqual(208);
      }
      expect(await page.getByTestId("jobgraph-nav").count()).toBe(0);
    });
  }

  it("scrolls a longer row sideways, saying what is out of view", async () => {
    const page = await openJobGraph(5, 1280, 800);
    const after = page.getByTestId("jobgraph-scroll-after");
    const before = page.getByTestId("jobgraph-scroll-before");

    // Three columns fit; the last two are out of view, and the buttons say so.
    await expect.poll(() => after.textContent()).toBe("2 more columns →");
    expect(await before.isDisabled()).toBe(true);
    expect(await shownWhole(page, 3)).toBe(true);
    expect(await shownWhole(page, 5)).toBe(false);
    for (const head of [1, 2, 3, 4, 5]) {
      expect(await cardWidth(page, head)).toBeGreaterThanOrEqual(208);
    }
    await screenshot(page, "jobgraph-scroll");

    // One column at a time, to the end.
    await after.click();
    await expect.poll(() => shownWhole(page, 4)).toBe(true);
    await expect.poll(() => after.textContent()).toBe("1 more column →");
    await after.click();
    await expect.poll(() => shownWhole(page, 5)).toBe(true);
    await expect.poll(() => after.isDisabled()).toBe(true);
    await expect.poll(() => before.textContent()).toBe("← 2 columns");

    // And back.
    await before.click();
    await expect.poll(() => shownWhole(page, 2)).toBe(true);
    await before.click();
    await expect.poll(() => shownWhole(page, 1)).toBe(true);
    await expect.poll(() => before.isDisabled()).toBe(true);

    // The graph's own scroller scrolls too, by the arrow keys once it has the focus.
    await page.getByTestId("jobgraph-scroll").focus();
    for (let press = 0; press < 20; press += 1) {
      await page.keyboard.press("ArrowRight");
    }
    await expect.poll(() => shownWhole(page, 5)).toBe(true);
    await expect.poll(() => after.isDisabled()).toBe(true);
  });
});
