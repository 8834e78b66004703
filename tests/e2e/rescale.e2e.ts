/**
 * Rescaling before the first deploy: pick the keyed vertex of a job that never set a max
 * parallelism, give it more subtasks, read one bar of key groups per subtask before and
 * after with the warning that the derived max parallelism caps growth, then set it
 * explicitly with the offered action and see it pinned. A job of many vertices is
 * described a page at a time, with the errors of the other pages named.
 */

import { readFileSync } from "node:fs";
import { resolve } from "node:path";

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BrowserContext } from "playwright-core";

import {
  api,
  baseUrl,
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

// Every operator follows the job's default parallelism, and nothing sets a max parallelism.
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
      ui: { x: 40, y: 120 },
    },
    { id: 2, name: "Amount", operator: "map", params: { fn: "x * 10" }, ui: { x: 280, y: 120 } },
    { id: 3, name: "Total", operator: "reduce", params: { fn: "a + b" }, ui: { x: 520, y: 120 } },
    { id: 4, name: "Sink: Out", operator: "sink.print", ui: { x: 760, y: 120 } },
  ],
  edges: [
    { source: 1, target: 2, partitioner: null },
    { source: 2, target: 3, partitioner: "HASH", key: { fn: "x % 7" } },
    { source: 3, target: 4, partitioner: null },
  ],
};

interface Rescale {
  readonly choices: readonly { readonly id: string; readonly name: string }[];
}

interface Pipeline {
  readonly document: { readonly nodes: readonly { id: number; maxParallelism?: number }[] };
}

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

describe("rescale", () => {
  it("shows key groups before and after, warns of the derived max parallelism, pins it", async () => {
    const { context, page } = await signedIn(ada);
    contexts.push(context);
    const job = await api<Rescale>(
      "GET",
      `pipelines/${pipelineId}/rescale/?parallelism=2`,
      ada.token,
    );
    const total = job.choices.find((choice) => choice.name === "Total -> Sink: Out");
    expect(total).toBeDefined();
    const vertex = total?.id ?? "";
    await openEditor(page, pipelineId);

    await page.getByTestId("view-rescale").click();
    await page.getByTestId("rescale-verdict").waitFor();
    await page.getByTestId("rescale-target").selectOption(vertex);
    expect(await page.getByTestId("rescale-parallelism").inputValue()).toBe("2");
    await page.getByTestId("rescale-parallelism").fill("3");

    const section = page.getByTestId(`rescale-vertex-${vertex}`);
    await section.getByText("2 → 3 subtasks").waitFor();
    const before = section.getByTestId("rescale-bars-before").locator(".rescale-bar");
    const after = section.getByTestId("rescale-bars-after").locator(".rescale-bar");
    expect(await before.count()).toBe(2);
    expect(await after.count()).toBe(3);
    expect(await after.nth(1).getAttribute("title")).toBe(
      "Subtask 1 after: key groups 43–85, reads 43–63 from #0, 64–85 from #1; keeps 51.2% locally",
    );
    expect(await after.nth(1).locator(".rescale-bar__run").count()).toBe(2);
    expect(await section.textContent()).toContain("63 of 128 key groups move");
    const warning = section.locator('[data-code="derived-max-parallelism"]');
    expect(await warning.textContent()).toContain(
      "This job never set a max parallelism, so the keyed state of Total -> Sink: Out is " +
        "written with 128 key groups; it can never run wider than 128",
    );
    expect(await page.getByTestId("rescale-verdict").textContent()).toContain("Restores");
    await screenshot(page, "rescale");

    await page.getByTestId("rescale-pin-apply").click();

    await section
      .getByTestId("rescale-max-parallelism")
      .getByText("(max parallelism set)")
      .waitFor();
    expect(await section.getByTestId("rescale-max-parallelism").textContent()).toBe(
      "128 key groups (max parallelism set)",
    );
    expect(await warning.count()).toBe(0);
    expect(await page.getByTestId("rescale-pin").count()).toBe(0);
    const stored = await api<Pipeline>("GET", `pipelines/${pipelineId}/`, ada.token);
    const pinned = stored.document.nodes.map((node) => [node.id, node.maxParallelism ?? -1]);
    expect(pinned).toEqual([
      [1, -1],
      [2, -1],
      [3, 128],
      [4, 128],
    ]);
  });

  it("says whether the rescaled job restores from the current savepoint", async () => {
    // A real Flink 2.3 savepoint of a job whose max parallelism is set to 4.
    const cases = resolve(import.meta.dirname, "../compiler/data/savepoints");
    const document: unknown = JSON.parse(
      readFileSync(resolve(cases, "small-max.v1.streamgraph.json"), "utf8"),
    );
    const workspace = await firstWorkspace(ada);
    const created = await api<{ id: number }>("POST", "pipelines/", ada.token, {
      workspace: workspace.id,
      name: "Small max",
      document,
    });
    const form = new FormData();
    form.set(
      "file",
      new Blob([readFileSync(resolve(cases, "small-max.v1.savepoint"))]),
      "_metadata",
    );
    form.set("label", "production");
    form.set("current", "true");
    const uploaded = await fetch(`${baseUrl}/api/pipelines/${created.id}/savepoints/`, {
      method: "POST",
      headers: { Authorization: `Token ${ada.token}` },
      body: form,
    });
    expect(uploaded.status).toBe(201);
    const job = await api<Rescale>(
      "GET",
      `pipelines/${created.id}/rescale/?parallelism=2`,
      ada.token,
    );
    const sum = job.choices.find((choice) => choice.name.startsWith("Sum"))?.id ?? "";
    const { context, page } = await signedIn(ada);
    contexts.push(context);
    await openEditor(page, created.id);

    await page.getByTestId("view-rescale").click();
    expect(await page.getByTestId("rescale-savepoint").textContent()).toContain(
      "production (current)",
    );
    await page.getByTestId("rescale-target").selectOption(sum);
    const verdict = page.getByTestId("rescale-restore");
    await page.getByTestId("rescale-parallelism").fill("3");
    await expect.poll(() => verdict.getAttribute("data-tone")).toBe("restores");
    // Past the max parallelism the savepoint's state was written with, Flink does not even
    // build the job.
    await page.getByTestId("rescale-parallelism").fill("8");
    await expect.poll(() => verdict.getAttribute("data-tone")).toBe("not-compiled");
  });

  it("describes a large job a page at a time and names the errors of other pages", async () => {
    // 25 keyed steps in a row: 25 JobVertices, each deriving 128 key groups.
    const steps = 25;
    const document = {
      format: "streamgraph/v1",
      name: "long",
      config: { defaultParallelism: 2 },
      nodes: Array.from({ length: steps }, (_, at) => ({
        id: at + 1,
        name: at === 0 ? "Source: Numbers" : `Step ${at + 1}`,
        operator: at === 0 ? "source.sequence" : "map",
        params: at === 0 ? { from: 1, to: 100 } : { fn: "x + 1" },
        ui: { x: 40 + 240 * at, y: 120 },
      })),
      edges: Array.from({ length: steps - 1 }, (_, at) => ({
        source: at + 1,
        target: at + 2,
        partitioner: "HASH",
        key: { fn: "x % 7" },
      })),
    };
    const workspace = await firstWorkspace(ada);
    const created = await api<{ id: number }>("POST", "pipelines/", ada.token, {
      workspace: workspace.id,
      name: "Long",
      document,
    });
    const { context, page } = await signedIn(ada);
    contexts.push(context);
    await openEditor(page, created.id);

    await page.getByTestId("view-rescale").click();
    await page.getByTestId("rescale-parallelism").fill("200");

    await expect
      .poll(() => page.getByTestId("rescale-verdict").textContent())
      .toContain("Does not restore");
    const pager = page.getByTestId("rescale-pager");
    await pager.getByText("Vertices 1–20 of 25").waitFor();
    expect(await page.locator('[data-testid^="rescale-vertex-"]').count()).toBe(20);
    const elsewhere = page.getByTestId("rescale-elsewhere");
    expect(await elsewhere.getByTestId("rescale-problem").count()).toBe(5);
    expect(await page.getByTestId("rescale-unlisted").textContent()).toBe(
      "Also 5 warnings not listed here: see the other pages.",
    );

    await elsewhere.getByRole("button", { name: "Show Step 25" }).click();

    await pager.getByText("Vertices 21–25 of 25").waitFor();
    expect(await page.locator('[data-testid^="rescale-vertex-"]').count()).toBe(5);
    const names = page.locator(".rescale-vertex .ev-section__name");
    expect(await names.last().textContent()).toBe("Step 25");
    expect(await elsewhere.getByTestId("rescale-problem").count()).toBe(20);
    await pager.getByRole("button", { name: "Previous" }).click();
    await pager.getByText("Vertices 1–20 of 25").waitFor();
  });
});
