/**
 * A new user signs up, creates a pipeline, builds it from the palette, and
 * watches the chain form when the operators connect and break when one
 * operator's parallelism changes.
 */

import { afterAll, describe, expect, it } from "vitest";
import type { BrowserContext, Page } from "playwright-core";

import { baseUrl, connect, screenshot, sharedBrowser } from "./support";

const contexts: BrowserContext[] = [];

afterAll(async () => {
  await Promise.all(contexts.map((context) => context.close()));
});

async function dropFromPalette(page: Page, kind: string, x: number, y: number): Promise<void> {
  await page.getByTestId(`palette-${kind}`).dragTo(page.getByTestId("canvas"), {
    targetPosition: { x, y },
  });
}

describe("designing a pipeline", () => {
  it("signs up, builds a pipeline from the palette and explains its chains", async () => {
    const context = await (
      await sharedBrowser()
    ).newContext({
      viewport: { width: 1280, height: 800 },
      baseURL: baseUrl,
    });
    contexts.push(context);
    const page = await context.newPage();
    const username = `ada-${Date.now().toString(36)}`;

    await page.goto("/");
    await page.waitForURL("**/signin");
    await screenshot(page, "signin");
    await page.getByRole("button", { name: "Create an account" }).click();
    await page.getByLabel("Username").fill(username);
    await page.getByLabel("Password").fill("a long enough passphrase");
    await page.getByRole("button", { name: "Create account" }).click();
    await page.getByRole("heading", { name: `${username}'s workspace` }).waitFor();

    await page.getByTestId("new-pipeline-name").fill("Word count");
    await page.getByTestId("create-pipeline").click();
    await page.waitForURL(/\/pipelines\/\d+$/);
    await page.getByText(/Saved · rev \d+/).waitFor();

    await dropFromPalette(page, "source.sequence", 120, 200);
    await dropFromPalette(page, "map", 360, 200);
    await dropFromPalette(page, "sink.print", 600, 200);
    await expect.poll(() => page.locator(".react-flow__node-operator").count()).toBe(3);

    await connect(page, 1, 2);
    await connect(page, 2, 3);
    // One chain: the three operators run in one task.
    const chain = page.getByTestId("chain-1");
    await chain.waitFor();
    await expect
      .poll(() => chain.textContent())
      .toContain("Source: Sequence -> Map -> Sink: Print to Std. Out");
    await page.getByText("Saved · rev").waitFor();

    // The map runs with parallelism 3: the edges chose no partitioner, so Flink's default
    // around it is REBALANCE now, and nothing chains.
    await page.getByTestId("node-2").click();
    await page.getByTestId("prop-parallelism").fill("3");
    await page.getByTestId("prop-parallelism").press("Enter");
    await expect.poll(() => chain.count()).toBe(0);
    const edge = page.getByTestId("edge-1-2-0-0");
    await expect.poll(() => edge.getAttribute("data-chained")).toBe("false");
    const reasons = (await edge.getAttribute("title")) ?? "";
    expect(reasons).toContain("not chained");
    expect(reasons.toLowerCase()).toContain("parallelism");
    await expect.poll(() => page.getByTestId("node-2-parallelism").textContent()).toBe("p3");

    // A parallelism that is no whole number of at least 1 is refused at the field, which
    // says why and keeps showing the last valid value.
    const parallelism = page.getByTestId("prop-parallelism");
    for (const text of ["0", "abc", "-3", "2.5"]) {
      await parallelism.fill(text);
      await parallelism.blur();
      await expect
        .poll(() => page.getByTestId("prop-parallelism-error").textContent())
        .toContain(`"${text}" was not kept`);
      expect(await parallelism.inputValue()).toBe("3");
    }
    expect(await page.getByTestId("node-2-parallelism").textContent()).toBe("p3");

    // The edge left to Flink's default is drawn as such, naming what Flink picked.
    expect(await edge.getAttribute("data-partitioner-chosen")).toBe("false");
    expect(await edge.textContent()).toContain("REBALANCE (default)");

    // The edge panel lists the same reasons.
    await edge.click();
    await page.getByTestId("edge-chain-status").waitFor();
    expect(await page.getByTestId("edge-chain-status").textContent()).toContain("Not chained");
    const partitioner = page.getByTestId("edge-partitioner");
    expect(await partitioner.inputValue()).toBe("DEFAULT");
    expect(await partitioner.locator("option:checked").textContent()).toBe(
      "Default (Flink picks REBALANCE)",
    );
    await screenshot(page, "editor-unchained");

    // Undo restores the parallelism, the default edges are FORWARD again: the chain is back.
    await page.locator(".react-flow__pane").click({ position: { x: 20, y: 20 } });
    await page.keyboard.press("Control+z");
    await chain.waitFor();
    await expect
      .poll(() => page.getByTestId("edge-1-2-0-0").getAttribute("data-chained"))
      .toBe("true");
    await screenshot(page, "editor");
  });

  it("loads the app's bundles compressed and cached for a year", async () => {
    const context = await (await sharedBrowser()).newContext({ baseURL: baseUrl });
    contexts.push(context);
    const page = await context.newPage();
    const bundle = page.waitForResponse((response) =>
      /\/assets\/index-[^/]+\.js$/.test(response.url()),
    );

    await page.goto("/");

    const response = await bundle;
    expect(response.status()).toBe(200);
    // Chromium asks for brotli over HTTPS only; over plain HTTP it gets gzip.
    expect(["br", "gzip"]).toContain(response.headers()["content-encoding"]);
    expect(response.headers()["cache-control"]).toBe("public, max-age=31536000, immutable");
  });
});
