/**
 * Keeping a keyed operator's state restorable: the editor warns that a reduce without a
 * uid has an OperatorID that drifts with the graph, "Pin current IDs" sets its uidHash
 * to the OperatorID it has now (the server's plan agrees before and after), and one undo
 * takes it back.
 */

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BrowserContext, Page } from "playwright-core";

import { api, firstWorkspace, newUser, openEditor, signedIn, type TestUser } from "./support";

const contexts: BrowserContext[] = [];
let ada: TestUser;
let pipelineId: number;

// The source has a uid; the reduce has none, so only its state is at risk.
const DOCUMENT = {
  format: "streamgraph/v1",
  name: "totals",
  config: { defaultParallelism: 2 },
  nodes: [
    {
      id: 1,
      name: "Source: Orders",
      operator: "source.sequence",
      params: { from: 1, to: 100 },
      uid: "orders",
      uidHash: null,
      ui: { x: 40, y: 120 },
    },
    {
      id: 2,
      name: "Amount",
      operator: "map",
      params: { fn: "x * 10" },
      uid: null,
      uidHash: null,
      ui: { x: 280, y: 120 },
    },
    {
      id: 3,
      name: "Total",
      operator: "reduce",
      params: { fn: "a + b" },
      uid: null,
      uidHash: null,
      ui: { x: 520, y: 120 },
    },
    { id: 4, name: "Sink: Out", operator: "sink.print", ui: { x: 760, y: 120 } },
  ],
  edges: [
    { source: 1, target: 2, partitioner: null },
    { source: 2, target: 3, partitioner: "HASH", key: { fn: "x % 7" } },
    { source: 3, target: 4, partitioner: null },
  ],
};

interface Diagnostic {
  readonly code: string;
  readonly node: number | null;
  readonly field: string | null;
  readonly stage?: string;
}

interface Plan {
  readonly ok: boolean;
  readonly diagnostics: readonly Diagnostic[];
  readonly jobGraph: {
    readonly hashes: Readonly<Record<string, string>>;
    readonly vertices: readonly {
      readonly operatorIds: readonly { generated: string; userDefined: string | null }[];
    }[];
  } | null;
}

interface Pipeline {
  readonly revision: number;
  readonly document: {
    readonly nodes: readonly { id: number; uid?: string | null; uidHash?: string | null }[];
  };
}

function plan(): Promise<Plan> {
  return api<Plan>("GET", `pipelines/${pipelineId}/plan/`, ada.token);
}

function pipeline(): Promise<Pipeline> {
  return api<Pipeline>("GET", `pipelines/${pipelineId}/`, ada.token);
}

async function totalUidHash(): Promise<string | null | undefined> {
  return (await pipeline()).document.nodes.find((node) => node.id === 3)?.uidHash;
}

function stateWarnings(current: Plan): [number | null, string | null][] {
  return current.diagnostics.filter((d) => d.stage === "state").map((d) => [d.node, d.field]);
}

/** The user-defined ID the JobGraph gives the operator whose generated ID is `id`. */
function userDefinedId(current: Plan, id: string): string | null | undefined {
  return current.jobGraph?.vertices
    .flatMap((vertex) => vertex.operatorIds)
    .find((ids) => ids.generated === id)?.userDefined;
}

const warningText = "Total keeps keyed state but has no uid";

async function waitForSaved(page: Page, revision: number): Promise<void> {
  await page.getByText(`Saved · rev ${revision}`).waitFor();
}

beforeAll(async () => {
  ada = await newUser("ada");
  const workspace = await firstWorkspace(ada);
  const created = await api<{ id: number }>("POST", "pipelines/", ada.token, {
    workspace: workspace.id,
    name: "Totals",
    document: DOCUMENT,
  });
  pipelineId = created.id;
});

afterAll(async () => {
  await Promise.all(contexts.map((context) => context.close()));
});

describe("pinning operator IDs", () => {
  it("warns about a keyed reduce without uid, pins its current ID, and undoes it", async () => {
    const revision = (await pipeline()).revision;
    const before = await plan();
    const operatorId = before.jobGraph?.hashes["3"] ?? "";
    expect(operatorId).toMatch(/^[0-9a-f]{32}$/);
    expect(stateWarnings(before)).toEqual([[3, "uid"]]);
    expect(before.ok).toBe(true);

    const { context, page } = await signedIn(ada);
    contexts.push(context);
    await openEditor(page, pipelineId);

    // The warning is in the problems panel; a click selects its operator.
    const warning = page.locator(".problem", { hasText: warningText });
    await warning.waitFor();
    expect(await warning.textContent()).toContain("warning");
    await warning.click();
    await page.getByTestId("node-properties").getByRole("heading", { name: "Total" }).waitFor();

    // With nothing selected, the pipeline's settings offer to pin every unpinned operator.
    await page.locator(".react-flow__pane").click({ position: { x: 20, y: 20 } });
    await page.getByTestId("pipeline-settings").waitFor();
    expect(await page.getByTestId("state-summary").textContent()).toContain(
      "1 stateful operator has no uid or uidHash",
    );
    await page.getByTestId("pin-current-ids").click();
    const dialog = page.getByTestId("state-ids-dialog");
    await dialog.waitFor();
    expect(await dialog.textContent()).toContain("Pin 1 operator");
    expect(await dialog.getByTestId("state-ids-row-3").textContent()).toContain("Total");
    expect(await dialog.getByTestId("state-ids-value-3").textContent()).toBe(operatorId);
    expect(await dialog.locator("tbody tr").count()).toBe(1);
    await dialog.getByTestId("state-ids-apply").click();
    await dialog.waitFor({ state: "detached" });

    await waitForSaved(page, revision + 1);
    await warning.waitFor({ state: "detached" });
    expect(await totalUidHash()).toBe(operatorId);
    const pinned = await plan();
    expect(pinned.jobGraph?.hashes["3"]).toBe(operatorId);
    expect(userDefinedId(pinned, operatorId)).toBe(operatorId);
    expect(stateWarnings(pinned)).toEqual([]);

    // One undo takes the pin back: the warning returns, the ID is the same as before.
    await page.getByRole("button", { name: "Undo", exact: true }).click();
    await waitForSaved(page, revision + 2);
    await warning.waitFor();
    expect(await totalUidHash()).toBeNull();
    const undone = await plan();
    expect(undone.jobGraph?.hashes["3"]).toBe(operatorId);
    expect(userDefinedId(undone, operatorId)).toBeNull();
    expect(stateWarnings(undone)).toEqual([[3, "uid"]]);
    expect(await page.getByRole("button", { name: "Undo", exact: true }).isDisabled()).toBe(true);

    // The warning's quick fix offers the same ID for that one operator.
    await page.getByTestId("pin-node-3").click();
    await dialog.waitFor();
    expect(await dialog.getByTestId("state-ids-value-3").textContent()).toBe(operatorId);
    await dialog.getByTestId("state-ids-cancel").click();
    await dialog.waitFor({ state: "detached" });
    expect(await totalUidHash()).toBeNull();
  });

  it("gives readable uids, saying that they change the IDs of saved versions", async () => {
    await api("POST", `pipelines/${pipelineId}/versions/`, ada.token, { message: "deployed" });
    const revision = (await pipeline()).revision;
    const operatorId = (await plan()).jobGraph?.hashes["3"] ?? "";
    const { context, page } = await signedIn(ada);
    contexts.push(context);
    await openEditor(page, pipelineId);

    await page.getByTestId("readable-uids").click();
    const dialog = page.getByTestId("state-ids-dialog");
    await dialog.waitFor();
    await dialog.getByText("This pipeline has 1 saved version").waitFor();
    expect(await dialog.textContent()).toContain("pin their current IDs instead");
    expect(await dialog.getByTestId("state-ids-value-3").textContent()).toBe("total");
    await dialog.getByTestId("state-ids-apply").click();

    await waitForSaved(page, revision + 1);
    const named = await pipeline();
    expect(named.document.nodes.find((node) => node.id === 3)).toMatchObject({ uid: "total" });
    const renamed = await plan();
    expect(renamed.jobGraph?.hashes["3"]).not.toBe(operatorId);
    expect(stateWarnings(renamed)).toEqual([]);

    await page.getByRole("button", { name: "Undo", exact: true }).click();
    await waitForSaved(page, revision + 2);
    expect((await plan()).jobGraph?.hashes["3"]).toBe(operatorId);
  });
});
