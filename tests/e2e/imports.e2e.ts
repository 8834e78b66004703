/**
 * A Flink job's plan brought in and made runnable in the browser: import
 * `getExecutionPlan()` JSON from a file, work through the import checklist
 * (the suggested kinds, the functions, the key), save, run it to FINISHED on
 * Spark, then cancel a longer run of it and see it CANCELED.
 */

import { resolve } from "node:path";

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BrowserContext, Page } from "playwright-core";

import { api, screenshot, signedIn, newUser, type TestUser } from "./support";

const SPARK_MS = 150_000;
const WORD_COUNT_PLAN = resolve(
  import.meta.dirname,
  "../compiler/data/fixtures/word-count.plan.json",
);

const contexts: BrowserContext[] = [];
let ines: TestUser;

interface Plan {
  readonly jobGraph: { readonly vertices: readonly { id: string; nodes: number[] }[] } | null;
}

beforeAll(async () => {
  ines = await newUser("ines");
});

afterAll(async () => {
  await Promise.all(contexts.map((context) => context.close()));
});

/** Type into a field of the inspector and commit it (Ctrl+Enter commits every kind of field). */
async function commit(page: Page, testId: string, text: string): Promise<void> {
  const field = page.getByTestId(testId);
  await field.fill(text);
  await field.press("Control+Enter");
  await page.getByText(/Saved · rev \d+/).waitFor();
}

/** Pick the checklist's line for `node` (the first, when the node has several). */
async function pickFromChecklist(page: Page, node: number): Promise<void> {
  await page.getByTestId(`import-checklist-${node}`).first().click();
}

async function runVersion(page: Page, version: number): Promise<number> {
  await page.getByTestId("side-versions").click();
  await page.getByTestId(`version-run-${version}`).click();
  await page.getByTestId(`version-run-start-${version}`).click();
  await page.waitForURL(/\/pipelines\/\d+\/runs\/\d+$/);
  await page.getByTestId("run-page").waitFor();
  return Number(/runs\/(\d+)$/.exec(page.url())?.[1]);
}

async function saveVersion(page: Page, version: number, message: string): Promise<void> {
  await page.getByTestId("side-versions").click();
  await page.getByTestId("version-message").fill(message);
  await page.getByTestId("version-save").click();
  await page.getByTestId(`version-row-${version}`).waitFor();
}

describe("a pipeline imported from Flink's plan JSON", () => {
  it(
    "is made runnable from its checklist, runs to FINISHED, and a second run is canceled",
    async () => {
      const { context, page } = await signedIn(ines);
      contexts.push(context);
      await page.goto("/");
      await page.getByTestId("import-file").setInputFiles(WORD_COUNT_PLAN);
      await page.getByText('Imported "word-count" from a Flink plan.').waitFor();
      await page.getByRole("link", { name: "word-count", exact: true }).click();
      await page.getByTestId("canvas").waitFor();
      await page.getByText(/Saved · rev \d+/).waitFor();
      const pipeline = Number(/pipelines\/(\d+)$/.exec(page.url())?.[1]);

      // Everything left is one list: the source's kind, two functions, the reduce and its key.
      const checklist = page.getByTestId("import-checklist");
      await expect.poll(() => checklist.getAttribute("data-remaining")).toBe("5");
      await screenshot(page, "editor-import-walk");

      // The source: Flink called it a Collection Source, and the checklist suggests Collection.
      await pickFromChecklist(page, 1);
      await page.getByTestId("import-apply").click();
      await expect
        .poll(() => page.getByTestId("prop-operator").inputValue())
        .toBe("source.collection");
      await page.getByText(/Saved · rev \d+/).waitFor();
      await commit(page, "param-values", '["to be or not to be", "that is the question"]');

      await pickFromChecklist(page, 2);
      await commit(page, "param-fn", "x.split()");
      await pickFromChecklist(page, 3);
      await commit(page, "param-fn", "(x, 1)");
      await pickFromChecklist(page, 6);
      await commit(page, "param-fn", "(a[0], a[1] + b[1])");

      // The reduce's last line is its input edge's key: the line selects the edge.
      const keyLine = page.getByTestId("import-checklist-6");
      await expect.poll(() => keyLine.count()).toBe(1);
      expect(await keyLine.textContent()).toContain("key");
      await keyLine.click();
      await page.getByTestId("edge-properties").waitFor();
      await commit(page, "edge-key", "x[0]");

      await expect.poll(() => checklist.getAttribute("data-remaining")).toBe("0");
      expect(await checklist.textContent()).toContain("nothing left to fill in, it can run");

      await saveVersion(page, 1, "Word count from the Flink job");
      await runVersion(page, 1);
      await page
        .locator('[data-testid="run-status"][data-status="FINISHED"]')
        .waitFor({ timeout: SPARK_MS });
      await page.getByTestId("run-tab-output").click();
      const printed = await page
        .locator('[data-testid^="sink-preview-7-"]')
        .evaluateAll((els) => els.map((el) => el.textContent).join("\n"));
      // Flink's keyed reduce emits a running count: "be" and "to" reach 2.
      expect(printed).toContain("('be', 2)");
      expect(printed).toContain("('to', 2)");
      expect(printed).toContain("('question', 1)");

      // A longer run of the same job: every word a million times, canceled while it runs.
      await page.getByTestId("run-back").click();
      await page.getByTestId("canvas").waitFor();
      await page.getByTestId("side-properties").click();
      await page.getByTestId("node-2").click();
      await commit(page, "param-fn", "x.split() * 1000000");
      await saveVersion(page, 2, "Every word a million times");
      const plan = await api<Plan>("GET", `pipelines/${pipeline}/plan/?version=2`, ines.token);
      const source = plan.jobGraph?.vertices.find((vertex) => vertex.nodes.includes(1))?.id;
      expect(source).toBeDefined();
      await runVersion(page, 2);
      await page
        .locator(`[data-testid="run-vertex-${source ?? ""}"][data-status="RUNNING"]`)
        .waitFor({ timeout: SPARK_MS });
      await page.getByTestId("run-cancel").click();
      await page
        .locator('[data-testid="run-status"][data-status="CANCELED"]')
        .waitFor({ timeout: 60_000 });
      await expect
        .poll(() => page.getByTestId("run-ending").textContent())
        .toContain(`canceled by ${ines.username}`);
      expect(await page.getByText("The run failed").count()).toBe(0);
    },
    2 * SPARK_MS + 60_000,
  );
});
