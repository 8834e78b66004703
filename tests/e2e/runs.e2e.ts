/**
 * Running a saved version on Spark from the browser: press Run in the history,
 * watch every subtask finish with its records, read the sink's output; see a
 * failing operator retried and marked where it failed; cancel a long run; and
 * be told why a version that cannot run does not.
 *
 * The server runs real Spark in local mode; its first session takes a while
 * to start on a loaded machine, so the waits are long.
 */

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

const SPARK_MS = 150_000;
const RECORDS = 1000;

const contexts: BrowserContext[] = [];
let eddie: TestUser;
let workspace: number;

interface Plan {
  readonly jobGraph: { readonly vertices: readonly { id: string; nodes: number[] }[] } | null;
}

/** source -> map (chained) -> HASH by key -> reduce -> collect (chained), parallelism 2. */
function countsDocument(mapFn: string, to = RECORDS): object {
  return {
    format: "streamgraph/v1",
    name: "counts",
    // BATCH: the reduce emits one final sum per key, so the preview holds them all.
    config: { defaultParallelism: 2, runtimeMode: "BATCH" },
    nodes: [
      {
        id: 1,
        name: "Source: Numbers",
        operator: "source.sequence",
        params: { from: 1, to },
        ui: { x: 40, y: 120 },
      },
      { id: 2, name: "Pair", operator: "map", params: { fn: mapFn }, ui: { x: 280, y: 120 } },
      {
        id: 3,
        name: "Sum",
        operator: "reduce",
        params: { fn: "(a[0], a[1] + b[1])" },
        ui: { x: 520, y: 120 },
      },
      { id: 4, name: "Sink: Sums", operator: "sink.collect", ui: { x: 760, y: 120 } },
    ],
    edges: [
      { source: 1, target: 2, partitioner: "FORWARD" },
      { source: 2, target: 3, partitioner: "HASH", key: { fn: "x[0]" } },
      { source: 3, target: 4, partitioner: "FORWARD" },
    ],
  };
}

/** A pipeline with version 1 saved; its JobVertexIDs by the node they hold. */
async function savedPipeline(
  name: string,
  mapFn: string,
  to?: number,
): Promise<{ id: number; vertexOf: (node: number) => string }> {
  const created = await api<{ id: number }>("POST", "pipelines/", eddie.token, {
    workspace,
    name,
    document: countsDocument(mapFn, to),
  });
  await api("POST", `pipelines/${created.id}/versions/`, eddie.token, { message: "first" });
  const plan = await api<Plan>("GET", `pipelines/${created.id}/plan/?version=1`, eddie.token);
  const vertices = plan.jobGraph?.vertices ?? [];
  return {
    id: created.id,
    vertexOf: (node) => {
      const vertex = vertices.find((v) => v.nodes.includes(node));
      if (vertex === undefined) {
        throw new Error(`no vertex holds node ${node}`);
      }
      return vertex.id;
    },
  };
}

async function page(): Promise<Page> {
  const opened = await signedIn(eddie);
  contexts.push(opened.context);
  return opened.page;
}

/** Start recording every status the page shows (run, vertices, subtasks), as it changes. */
async function recordStatuses(page: Page): Promise<void> {
  await page.evaluate(() => {
    const seen: [string, string][] = [];
    (window as unknown as { seen: [string, string][] }).seen = seen;
    const note = (element: Element): void => {
      const id = element.getAttribute("data-testid");
      const status = element.getAttribute("data-status") ?? element.getAttribute("data-state");
      if (id !== null && status !== null && seen.at(-1)?.join() !== [id, status].join()) {
        seen.push([id, status]);
      }
    };
    new MutationObserver((mutations) => {
      for (const mutation of mutations) {
        if (mutation.type === "attributes" && mutation.target instanceof Element) {
          note(mutation.target);
        }
        for (const added of mutation.addedNodes) {
          if (added instanceof Element) {
            [added, ...added.querySelectorAll("[data-status], [data-state]")].forEach(note);
          }
        }
      }
    }).observe(document.body, {
      subtree: true,
      childList: true,
      attributes: true,
      attributeFilter: ["data-status", "data-state"],
    });
  });
}

/** The statuses one element showed, in order, from `recordStatuses`. */
async function statusesOf(page: Page, testId: string): Promise<string[]> {
  const seen = await page.evaluate(() => (window as unknown as { seen: [string, string][] }).seen);
  return seen.filter(([id]) => id === testId).map(([, status]) => status);
}

async function runStatus(page: Page): Promise<string | null> {
  return page.getByTestId("run-status").getAttribute("data-status");
}

async function waitForStatus(page: Page, status: string, timeout = SPARK_MS): Promise<void> {
  await page.locator(`[data-testid="run-status"][data-status="${status}"]`).waitFor({ timeout });
}

/** The first number in a text, digits grouped or not ("1,000 records" is 1000). */
function count(text: string | null): number {
  const match = /\d[\d,]*/.exec(text ?? "");
  return match === null ? Number.NaN : Number(match[0].replace(/,/g, ""));
}

beforeAll(async () => {
  eddie = await newUser("eddie");
  workspace = (await firstWorkspace(eddie)).id;
});

afterAll(async () => {
  await Promise.all(contexts.map((context) => context.close()));
});

describe("runs", () => {
  it(
    "runs a saved version and watches every subtask finish with its records",
    async () => {
      const pipeline = await savedPipeline("Counts", "(x % 5, 1)");
      const browser = await page();
      await openEditor(browser, pipeline.id);
      await browser.getByTestId("side-versions").click();
      await browser.getByTestId("version-run-1").click();
      await recordStatuses(browser);
      await browser.getByTestId("version-run-start-1").click();
      await browser.waitForURL(new RegExp(`/pipelines/${pipeline.id}/runs/\\d+$`));
      const runId = Number(/runs\/(\d+)$/.exec(browser.url())?.[1]);
      await browser.getByTestId("run-page").waitFor();

      await waitForStatus(browser, "FINISHED");
      // How Spark ran it, said plainly, with the exchange Flink plans beside what Spark did:
      // a SQL feed runs as three stages (the numbers and the pairs, their aggregation and
      // placement, the sums).
      expect(await browser.getByTestId("execution-sentence").textContent()).toContain(
        "Spark ran this BATCH pipeline as a bounded batch job: its source read its whole " +
          "input, 3 stages ran one after the other; 1 exchange was materialised between " +
          "stages (HASH into Sum)",
      );
      expect(await browser.getByTestId("execution-exchange-1").innerText()).toMatch(
        /Pair → Sum\s+HASH · BLOCKING\s+shuffle, materialised\s+stage 1 → 3/,
      );
      const source = pipeline.vertexOf(1);
      const sum = pipeline.vertexOf(3);
      // What ran each vertex: the numbers are made and paired in the JVM, then folded there.
      expect(await browser.getByTestId("execution-engines-sentence").textContent()).toBe(
        "Every vertex ran as Spark SQL.",
      );
      for (const vertex of [source, sum]) {
        expect(
          await browser.getByTestId(`execution-engine-${vertex}`).getAttribute("data-engine"),
        ).toBe("sql");
      }
      for (const vertex of [source, sum]) {
        await expect
          .poll(() => browser.getByTestId(`run-vertex-finished-${vertex}`).textContent())
          .toBe("2/2 finished");
        // Live: the box showed the vertex CREATED, then FINISHED, without a reload.
        const seen = await statusesOf(browser, `run-vertex-${vertex}`);
        expect(seen[0]).toBe("CREATED");
        expect(seen.at(-1)).toBe("FINISHED");
      }
      // The subtask table (the first vertex's) followed each subtask forwards to FINISHED.
      const order = ["CREATED", "SCHEDULED", "DEPLOYING", "INITIALIZING", "RUNNING", "FINISHED"];
      for (const subtask of [0, 1]) {
        const ranks = (await statusesOf(browser, `subtask-row-${subtask}`)).map((state) =>
          order.indexOf(state),
        );
        expect(ranks[0]).toBeLessThan(order.indexOf("FINISHED"));
        expect(ranks.at(-1)).toBe(order.indexOf("FINISHED"));
        expect(ranks).toEqual([...ranks].sort((a, b) => a - b));
      }
      const run = await statusesOf(browser, "run-status");
      expect(run.at(-1)).toBe("FINISHED");
      expect(run.length).toBeGreaterThan(1);

      // The keyed vertex, picked on the canvas: every subtask FINISHED, between them every record.
      await browser.getByTestId(`run-vertex-finished-${sum}`).click();
      await browser.getByTestId(`vertex-panel-${sum}`).waitFor();
      const rows = browser.locator('[data-testid^="subtask-row-"]');
      expect(await rows.count()).toBe(2);
      for (const state of await rows.evaluateAll((els) => els.map((el) => el.dataset.state))) {
        expect(state).toBe("FINISHED");
      }
      const recordsIn =
        count(await browser.getByTestId("subtask-in-0").textContent()) +
        count(await browser.getByTestId("subtask-in-1").textContent());
      expect(recordsIn).toBe(RECORDS);
      await browser.getByTestId("skew-summary").waitFor();
      // Five keys over two subtasks cannot be even: the chart says by how much.
      expect(await browser.getByTestId("skew-summary").getAttribute("data-verdict")).not.toBe(
        "none",
      );
      await screenshot(browser, "run");

      // The sink's output: five sums, one per key, split over its two subtasks.
      await browser.getByTestId("run-tab-output").click();
      expect(count(await browser.getByTestId("sink-records-4").textContent())).toBe(5);
      const previews = await browser
        .locator('[data-testid^="sink-preview-4-"]')
        .evaluateAll((els) => els.map((el) => el.textContent).join("\n"));
      for (const key of [0, 1, 2, 3, 4]) {
        expect(previews).toContain(`[${key}, ${RECORDS / 5}]`);
      }

      // The run is in the pipeline's history.
      await browser.getByTestId("run-back").click();
      await browser.getByTestId("side-runs").click();
      const item = browser.getByTestId(`run-item-${runId}`);
      await item.waitFor();
      expect(await item.textContent()).toContain("FINISHED");
    },
    SPARK_MS + 60_000,
  );

  it(
    "runs a version on a smaller input without saving a new version",
    async () => {
      const pipeline = await savedPipeline("Sample", "(x % 5, 1)");
      const browser = await page();
      await openEditor(browser, pipeline.id);
      await browser.getByTestId("side-versions").click();
      await browser.getByTestId("version-run-1").click();
      await browser.getByTestId("version-run-parameters-open-1").click();
      const to = browser.getByTestId("run-param-1.to");
      expect(await to.inputValue()).toBe(String(RECORDS));
      await to.fill("100");
      await screenshot(browser, "run-parameters");
      await browser.getByTestId("version-run-start-1").click();
      await browser.waitForURL(new RegExp(`/pipelines/${pipeline.id}/runs/\\d+$`));
      await waitForStatus(browser, "FINISHED");

      expect(await browser.getByTestId("run-overrides").textContent()).toBe(
        "1 parameter overridden",
      );
      await browser.getByTestId("run-tab-output").click();
      const previews = await browser
        .locator('[data-testid^="sink-preview-4-"]')
        .evaluateAll((els) => els.map((el) => el.textContent).join("\n"));
      for (const key of [0, 1, 2, 3, 4]) {
        expect(previews).toContain(`[${key}, 20]`);
      }
      // The version still counts to its own end.
      const version = await api<{ document: { nodes: { params?: { to?: number } }[] } }>(
        "GET",
        `pipelines/${pipeline.id}/versions/1/`,
        eddie.token,
      );
      expect(version.document.nodes[0]?.params?.to).toBe(RECORDS);
    },
    SPARK_MS,
  );

  it(
    "marks the operator that failed, with every retry in the subtask's history",
    async () => {
      const pipeline = await savedPipeline("Fails", "(x % 5, 1) if x != 777 else 1 // 0");
      const run = await api<{ id: number }>("POST", `pipelines/${pipeline.id}/runs/`, eddie.token, {
        version: 1,
      });
      const browser = await page();
      await browser.goto(`/pipelines/${pipeline.id}/runs/${run.id}`);
      await waitForStatus(browser, "FAILED");
      expect(await browser.getByTestId("run-error").textContent()).toContain("ZeroDivisionError");
      await expect
        .poll(() => browser.getByTestId("run-op-2").getAttribute("class"))
        .toMatch(/run-op--failed/);

      // Record 777 is in subtask 1 of the source's chain: each attempt failed on it.
      await browser.getByTestId(`vertex-row-${pipeline.vertexOf(1)}`).click();
      const failed = browser.getByTestId("subtask-row-1");
      expect(await failed.getAttribute("data-state")).toBe("FAILED");
      await failed.click();
      const attempts = browser.locator('[data-testid^="attempt-1-"]');
      expect(await attempts.count()).toBeGreaterThan(1);
      await browser.getByTestId("run-tab-exceptions").click();
      expect(await browser.getByTestId("exceptions").textContent()).toContain("Pair (node 2)");
      await screenshot(browser, "run-failed");
    },
    SPARK_MS,
  );

  it(
    "cancels a running run",
    async () => {
      const pipeline = await savedPipeline("Long", "(x % 5, 1)", 200_000_000);
      const run = await api<{ id: number }>("POST", `pipelines/${pipeline.id}/runs/`, eddie.token, {
        version: 1,
      });
      const browser = await page();
      await browser.goto(`/pipelines/${pipeline.id}/runs/${run.id}`);
      await waitForStatus(browser, "RUNNING");
      // Wait until a subtask really runs, so the cancel stops Spark work.
      await browser
        .locator(`[data-testid="run-vertex-${pipeline.vertexOf(1)}"][data-status="RUNNING"]`)
        .waitFor({ timeout: SPARK_MS });
      await browser.getByTestId("run-cancel").click();
      await waitForStatus(browser, "CANCELED", 60_000);
      expect(await runStatus(browser)).toBe("CANCELED");
      await expect
        .poll(() =>
          browser.getByTestId(`run-vertex-${pipeline.vertexOf(1)}`).getAttribute("data-status"),
        )
        .toBe("CANCELED");
      expect(await browser.getByTestId("run-again").count()).toBe(1);
      // Canceled reads neutrally, saying who canceled it, never as a failure.
      const ending = browser.getByTestId("run-ending");
      await expect.poll(() => ending.textContent()).toContain(`canceled by ${eddie.username}`);
      expect(await browser.getByTestId("run-error").count()).toBe(0);
      expect(await browser.getByText("The run failed").count()).toBe(0);
      expect(await browser.getByTestId("run-tab-exceptions").textContent()).toBe("Exceptions");
      // Spark gives the stages it cancels a failure reason: the page says they did not finish.
      await expect
        .poll(() => browser.getByTestId("execution-stage-1").textContent())
        .toContain("did not finish");
      expect(await browser.getByTestId("run-execution").textContent()).not.toContain("failed");
    },
    SPARK_MS + 60_000,
  );

  it("lets an owner choose the cluster, and says which node asks more than it allows", async () => {
    const pipeline = await savedPipeline("Wide", "(x % 3, x)");
    const browser = await page();
    await openEditor(browser, pipeline.id);
    await browser.getByTestId("side-versions").click();
    await browser.getByTestId("version-run-1").click();
    // The server of these tests has a second cluster that allows parallelism 1 only.
    await browser.getByTestId("version-run-cluster-1").selectOption("small");
    await browser.getByTestId("version-run-start-1").click();
    const problem = browser.getByTestId("run-problem-run.parallelism-limit").first();
    await problem.waitFor();
    expect(await problem.textContent()).toContain("cluster 'small' allows at most 1");
    expect(browser.url()).toMatch(new RegExp(`/pipelines/${pipeline.id}$`));
  });

  it("says why a version cannot run, on the node it concerns", async () => {
    const pipeline = await savedPipeline("Broken", "x +");
    const browser = await page();
    await openEditor(browser, pipeline.id);
    await browser.getByTestId("side-versions").click();
    await browser.getByTestId("version-run-1").click();
    await browser.getByTestId("version-run-start-1").click();
    const problem = browser.getByTestId("run-problem-param.invalid-expression");
    await problem.waitFor();
    expect(await problem.textContent()).toContain("Pair (node 2)");
    expect(browser.url()).toMatch(new RegExp(`/pipelines/${pipeline.id}$`));
  });
});
