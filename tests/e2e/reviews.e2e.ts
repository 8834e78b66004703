/**
 * A team of two reviews a plan in the browser: comments on the canvas, a review
 * requested and answered live, the state-loss gate on the approval, and a comment
 * that a later version makes outdated.
 */

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BrowserContext, Page } from "playwright-core";

import {
  api,
  connect,
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
let workspaceId: number;

// The total has no uid: its OperatorID follows from its place in the graph, so an
// operator inserted upstream of it gives its state nowhere to be restored.
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
    { id: 2, name: "Amount", operator: "map", params: { fn: "x * 10" }, ui: { x: 300, y: 120 } },
    { id: 3, name: "Total", operator: "reduce", params: { fn: "a + b" }, ui: { x: 560, y: 120 } },
    { id: 4, name: "Sink: Out", operator: "sink.print", ui: { x: 820, y: 120 } },
  ],
  edges: [
    { source: 1, target: 2, partitioner: "FORWARD" },
    { source: 2, target: 3, partitioner: "HASH", key: { fn: "x % 7" } },
    { source: 3, target: 4, partitioner: "FORWARD" },
  ],
};

beforeAll(async () => {
  ada = await newUser("ada");
  grace = await newUser("grace");
  workspaceId = (await firstWorkspace(ada)).id;
  await api("POST", `workspaces/${workspaceId}/members/`, ada.token, {
    username: grace.username,
    role: "editor",
  });
});

afterAll(async () => {
  await Promise.all(contexts.map((context) => context.close()));
});

async function newPipeline(name: string): Promise<number> {
  const created = await api<{ id: number }>("POST", "pipelines/", ada.token, {
    workspace: workspaceId,
    name,
    document: DOCUMENT,
  });
  return created.id;
}

async function open(user: TestUser, pipelineId: number): Promise<Page> {
  const { context, page } = await signedIn(user);
  contexts.push(context);
  await openEditor(page, pipelineId);
  return page;
}

describe("comments", () => {
  it("opens a thread on an operator, replies, names an unknown mention, and resolves", async () => {
    const pipelineId = await newPipeline("Comments");
    const adaPage = await open(ada, pipelineId);
    const gracePage = await open(grace, pipelineId);

    await adaPage.getByTestId("node-3").click();
    await adaPage.getByTestId("side-comments").click();
    await expect.poll(() => adaPage.getByTestId("new-thread-target").inputValue()).toBe("node:3");
    await adaPage.getByTestId("new-thread-body").fill(`@nobody-here, @${grace.username}: why?`);
    await adaPage.getByTestId("new-thread-submit").click();
    const refusal = adaPage.getByTestId("new-thread-error");
    await refusal.waitFor();
    expect(await refusal.textContent()).toContain("@nobody-here is not a member of this workspace");

    await adaPage.getByTestId("new-thread-body").fill(`@${grace.username}: why a reduce here?`);
    await adaPage.getByTestId("new-thread-submit").click();
    const adaThread = adaPage.locator('[data-testid^="thread-"][data-status="open"]').first();
    await adaThread.waitFor();
    expect(await adaThread.locator("mark.mention").textContent()).toBe(`@${grace.username}`);

    // Grace sees the badge on the operator and the thread, without reloading.
    const badge = gracePage.getByTestId("comment-badge-node-3");
    await badge.waitFor();
    expect(await badge.textContent()).toContain("1");
    await badge.click();
    const graceThread = gracePage.locator('[data-testid^="thread-"][data-status="open"]').first();
    await graceThread.waitFor();
    const threadId = ((await graceThread.getAttribute("data-testid")) ?? "").replace("thread-", "");
    await gracePage.getByTestId(`thread-${threadId}-reply-body`).fill("It sums per key.");
    await gracePage.getByTestId(`thread-${threadId}-reply-submit`).click();
    await expect
      .poll(() => adaPage.getByTestId(`thread-${threadId}`).textContent())
      .toContain("It sums per key.");

    // Ada resolves it: it leaves the open list, and the badge goes.
    await adaPage.getByTestId(`thread-${threadId}-resolve`).click();
    await adaPage.getByTestId("comments-empty").waitFor();
    await gracePage.getByTestId("comment-badge-node-3").waitFor({ state: "detached" });
    await gracePage.getByTestId("comments-filter-resolved").click();
    await gracePage.getByTestId(`thread-${threadId}-reopen`).waitFor();
    await screenshot(gracePage, "comments");
  });
});

async function dropFromPalette(page: Page, kind: string, x: number, y: number): Promise<void> {
  await page.getByTestId(`palette-${kind}`).dragTo(page.getByTestId("canvas"), {
    targetPosition: { x, y },
  });
}

async function notices(page: Page): Promise<string> {
  return (await page.locator(".notice-toast").allTextContents()).join(" ");
}

async function saveVersion(page: Page, number: number, message: string): Promise<void> {
  await page.getByText(/Saved · rev \d+/).waitFor();
  await page.getByTestId("side-versions").click();
  await page.getByTestId("version-message").fill(message);
  await page.getByTestId("version-save").click();
  await page.getByTestId(`version-row-${number}`).waitFor();
}

describe("a review of a plan", () => {
  it("asks, comments, refuses an approval that skips a state loss, approves, goes outdated", async () => {
    // Version 1 is approved: the reference later versions' state is checked against.
    const pipelineId = await newPipeline("Orders");
    const reviews = `pipelines/${pipelineId}/versions/1/reviews/`;
    await api("POST", `pipelines/${pipelineId}/versions/`, ada.token, { message: "First cut" });
    const first = await api<{ requests: { id: number }[] }>("POST", reviews, ada.token, {
      reviewers: [grace.username],
      message: "The baseline",
    });
    await api("POST", `${reviews}${first.requests[0]?.id ?? 0}/verdicts/`, grace.token, {
      verdict: "approve",
    });

    const adaPage = await open(ada, pipelineId);
    const gracePage = await open(grace, pipelineId);
    await gracePage.getByTestId("side-versions").click();
    await expect
      .poll(() => gracePage.getByTestId("review-state-1").getAttribute("data-state"))
      .toBe("approved");

    // Ada inserts a filter between the source and the amount: every OperatorID downstream
    // of it changes, the total's too, so its state saved under version 1 has nowhere to go.
    // The edge runs inside a chain box, which covers its line: click it where it is.
    await adaPage.getByTestId("edge-1-2-0-0").dispatchEvent("click");
    await adaPage.getByTestId("edge-chain-status").waitFor();
    await adaPage.keyboard.press("Delete");
    await adaPage.getByTestId("edge-1-2-0-0").waitFor({ state: "detached" });
    await dropFromPalette(adaPage, "filter", 260, 420);
    await adaPage.getByTestId("node-5").waitFor();
    await connect(adaPage, 1, 5);
    await connect(adaPage, 5, 2);
    await adaPage.getByTestId("edge-5-2-0-0").waitFor();
    await saveVersion(adaPage, 2, "Drop bad orders before the amount");

    await adaPage.getByTestId("version-request-review-2").click();
    await adaPage.getByTestId(`reviewer-${grace.username}`).check();
    await adaPage.getByTestId("request-review-message").fill("Does the total survive?");
    await adaPage.getByTestId("request-review-submit").click();
    await expect
      .poll(() => adaPage.getByTestId("review-state-2").getAttribute("data-state"))
      .toBe("in_review");

    // Grace hears of it at once, and opens the review from the notice.
    await expect
      .poll(() => notices(gracePage))
      .toContain(`${ada.username} asked you to review version 2: “Does the total survive?”`);
    await expect
      .poll(() => gracePage.getByTestId("review-state-2").getAttribute("data-state"))
      .toBe("in_review");
    await gracePage.getByTestId("notice-action").getByText("Open your review").click();
    await gracePage.waitForURL(/\/pipelines\/\d+\/versions\/2\/review$/);
    const risks = gracePage.locator('[data-testid^="state-risk-"]');
    await risks.first().waitFor();
    expect(await risks.count()).toBe(1);
    const risk = risks.first();
    expect(await risk.textContent()).toContain("Total");
    const operatorId = ((await risk.getAttribute("data-testid")) ?? "").replace("state-risk-", "");
    expect(operatorId).toMatch(/^[0-9a-f]{32}$/);
    expect(await risk.textContent()).toContain(operatorId);
    expect(await gracePage.getByTestId("review-state").getAttribute("data-state")).toBe(
      "in_review",
    );

    // She comments on the total, on the version under review.
    await gracePage.getByTestId("diff-node-3").click();
    await expect.poll(() => gracePage.getByTestId("new-thread-target").inputValue()).toBe("node:3");
    await gracePage
      .getByTestId("new-thread-body")
      .fill(`@${ada.username} the total starts from zero after this: intended?`);
    await gracePage.getByTestId("new-thread-submit").click();
    const thread = gracePage.locator('[data-testid^="thread-"][data-status="open"]').first();
    await thread.waitFor();
    const threadId = ((await thread.getAttribute("data-testid")) ?? "").replace("thread-", "");
    expect(await thread.textContent()).toContain("on version 2");
    await gracePage.getByTestId("comment-badge-node-3").waitFor();

    // An approval waits until the total is ticked, and says so in words.
    await gracePage.getByTestId("review-tab-review").click();
    const hint = gracePage.getByTestId("verdict-hint");
    await hint.waitFor();
    expect(await hint.textContent()).toContain(
      "Tick Total above to acknowledge that its state will not be restored",
    );
    await gracePage.getByTestId("verdict-summary").fill("Fine by me.");
    expect(await gracePage.getByTestId("verdict-submit").isDisabled()).toBe(true);
    expect(await gracePage.getByTestId("review-state").getAttribute("data-state")).toBe(
      "in_review",
    );
    await screenshot(gracePage, "review-state-loss");

    // Acknowledged, it goes through.
    await gracePage.getByTestId(`ack-${operatorId}`).check();
    await gracePage.getByTestId("verdict-submit").click();
    await expect
      .poll(() => gracePage.getByTestId("review-state").getAttribute("data-state"))
      .toBe("approved");
    expect(await gracePage.getByTestId("review-approvals").textContent()).toBe("1 of 1 approval");

    // Ada sees the verdict without reloading.
    await expect
      .poll(() => notices(adaPage))
      .toContain(`${grace.username} approved version 2: “Fine by me.” (now approved)`);
    await expect
      .poll(() => adaPage.getByTestId("review-state-2").getAttribute("data-state"))
      .toBe("approved");

    // A uid on the total changes its OperatorID: Grace's thread is outdated, and says why.
    await adaPage.getByTestId("side-properties").click();
    await adaPage.getByTestId("node-3").click();
    await adaPage.getByTestId("prop-uid").fill("total");
    await adaPage.getByTestId("prop-uid").press("Enter");
    await saveVersion(adaPage, 3, "Pin the total's state to a uid");
    await adaPage.getByTestId("side-comments").click();
    await adaPage.getByTestId("comments-filter-outdated").click();
    const causes = adaPage.getByTestId(`thread-${threadId}-causes`);
    await causes.waitFor();
    expect(await causes.textContent()).toContain("OperatorID changed");
    await adaPage.getByTestId(`thread-${threadId}-outdated`).waitFor();
    await screenshot(adaPage, "comments-outdated");

    // The diff of versions 2 and 3 shows the thread read at each: current in 2, outdated in 3.
    await adaPage.getByTestId("side-versions").click();
    await adaPage.getByTestId("version-changes-3").click();
    await adaPage.waitForURL(/\/diff\?from=2&to=3$/);
    await adaPage.getByTestId("comment-badge-node-3").waitFor();
    await adaPage.getByTestId("diff-tab-threads").click();
    const older = adaPage.getByTestId("diff-threads-older");
    await older.getByTestId(`thread-${threadId}`).waitFor();
    expect(await older.getByTestId(`thread-${threadId}`).getAttribute("data-outdated")).toBe(
      "false",
    );
    const newer = adaPage.getByTestId("diff-threads-newer");
    await newer.getByTestId("comments-filter-outdated").click();
    await newer.getByTestId(`thread-${threadId}-causes`).waitFor();
    await screenshot(adaPage, "diff-comments");
  });
});

describe("the review record", () => {
  it("keeps every verdict as it was given through role changes, until an owner revokes", async () => {
    const vera = await newUser("vera");
    const members = `workspaces/${workspaceId}/members/`;
    await api("POST", members, ada.token, { username: vera.username, role: "viewer" });
    const pipelineId = await newPipeline("Record");
    const reviews = `pipelines/${pipelineId}/versions/1/reviews/`;
    await api("POST", `pipelines/${pipelineId}/versions/`, ada.token, { message: "First cut" });
    await api("PATCH", `workspaces/${workspaceId}/review-policy/`, ada.token, {
      requireApprovalToRun: true,
    });
    const asked = await api<{ requests: { id: number }[] }>("POST", reviews, ada.token, {
      reviewers: [grace.username, vera.username],
      message: "Two pairs of eyes",
    });
    const requestId = asked.requests[0]?.id ?? 0;
    await api("POST", `${reviews}${requestId}/verdicts/`, grace.token, { verdict: "approve" });

    // Vera is a viewer: the form says before she sends that her verdict will not count.
    const veraSession = await signedIn(vera);
    contexts.push(veraSession.context);
    const veraPage = veraSession.page;
    await veraPage.goto(`/pipelines/${pipelineId}/versions/1/review`);
    await veraPage.getByTestId("verdict-will-not-count").waitFor();
    await veraPage.getByTestId("verdict-summary").fill("Looks fine to me.");
    await veraPage.getByTestId("verdict-submit").click();
    const veraRow = veraPage.getByTestId(`reviewer-${requestId}-${vera.username}`);
    await expect.poll(() => veraRow.textContent()).toMatch(/as viewer\s*\(does not count\)/);

    // Promoted, demoted, removed and re-added: nothing given is rewritten.
    const run = await api<{ id: number }>("POST", `pipelines/${pipelineId}/runs/`, ada.token, {
      version: 1,
    });
    await api("POST", `runs/${run.id}/cancel/`, ada.token);
    await api("PATCH", `${members}${vera.id}/`, ada.token, { role: "editor" });
    // Vera's open review follows her access: it says what her new role means.
    await expect
      .poll(() => veraPage.getByTestId("review-access-changed").textContent())
      .toContain("made you an editor");
    await api("PATCH", `${members}${grace.id}/`, ada.token, { role: "viewer" });
    await api("DELETE", `${members}${grace.id}/`, ada.token);
    await api("POST", members, ada.token, { username: grace.username, role: "editor" });
    const adaSession = await signedIn(ada);
    contexts.push(adaSession.context);
    const adaPage = adaSession.page;
    await adaPage.goto(`/pipelines/${pipelineId}/versions/1/review`);
    await expect
      .poll(() => adaPage.getByTestId("review-state").getAttribute("data-state"))
      .toBe("approved");
    expect(await adaPage.getByTestId("review-approvals").textContent()).toBe("1 of 1 approval");
    const graceRow = adaPage.getByTestId(`reviewer-${requestId}-${grace.username}`);
    expect(await graceRow.textContent()).toContain("as editor");
    expect(
      await adaPage.getByTestId(`reviewer-${requestId}-${vera.username}`).textContent(),
    ).toMatch(/as viewer\s*\(does not count\)/);
    await screenshot(adaPage, "review-record");

    // Ada revokes Grace's approval, saying why: on the record, and the gate closes.
    await graceRow.locator('[data-testid^="revoke-open-"]').click();
    await graceRow
      .locator('[data-testid^="revoke-"][data-testid$="-body"]')
      .fill("Approved before the load test");
    await graceRow.locator('[data-testid^="revoke-"][data-testid$="-submit"]').click();
    await expect
      .poll(() => adaPage.getByTestId("review-state").getAttribute("data-state"))
      .toBe("in_review");
    expect(await graceRow.textContent()).toContain("“Approved before the load test”");
    expect(await graceRow.textContent()).toContain(`Revoked by ${ada.username}`);
    await expect(
      api("POST", `pipelines/${pipelineId}/runs/`, ada.token, { version: 1 }),
    ).rejects.toThrow(/version-not-approved/);

    // Removed, Vera's open review says so instead of a missing pipeline.
    await api("DELETE", `${members}${vera.id}/`, ada.token);
    await veraPage.getByTestId("review-lost-access").waitFor();
    expect(await veraPage.getByTestId("review-lost-access").textContent()).toContain(
      "You no longer have access to this review",
    );

    // The activity feed is the audit trail of all of it.
    const editor = await open(ada, pipelineId);
    await editor.getByTestId("side-activity").click();
    const feed = editor.locator(".activity__list");
    await expect
      .poll(() => feed.textContent())
      .toContain(`${ada.username} removed ${vera.username}`);
    const trail = (await feed.textContent()) ?? "";
    for (const line of [
      `The review gate refused ${ada.username}'s run of version 1`,
      `${ada.username} revoked ${grace.username}'s approval of version 1`,
      `${ada.username} changed ${vera.username}'s role from viewer to editor`,
      `${ada.username} removed ${grace.username} (viewer) from the workspace`,
      `${ada.username} added ${grace.username} to the workspace as editor`,
      `${ada.username} changed the workspace's review policy: only approved versions may run`,
    ]) {
      expect(trail).toContain(line);
    }
  });
});

describe("the home page", () => {
  it("shows what waits for you, opens it, and lets owners set the review policy", async () => {
    const kim = await newUser("kim");
    await api("POST", `workspaces/${workspaceId}/members/`, ada.token, {
      username: kim.username,
      role: "viewer",
    });
    const pipelineId = await newPipeline("Inbox");
    await api("POST", `pipelines/${pipelineId}/versions/`, ada.token, { message: "First cut" });
    await api("POST", `pipelines/${pipelineId}/versions/1/reviews/`, ada.token, {
      reviewers: [kim.username],
      message: "A second pair of eyes",
    });
    const thread = await api<{ id: number }>(
      "POST",
      `pipelines/${pipelineId}/comments/`,
      ada.token,
      {
        version: 1,
        target: { kind: "node", node: 2 },
        body: `@${kim.username} is x * 10 right?`,
      },
    );

    const { context, page } = await signedIn(kim);
    contexts.push(context);
    await page.goto("/");
    await expect.poll(() => page.getByTestId("inbox-reviews-count").textContent()).toBe("1");
    expect(await page.getByTestId("inbox-mentions-count").textContent()).toBe("1");
    await screenshot(page, "inbox");

    // The mention opens its thread in the editor, and is read.
    await page.locator('[data-testid^="inbox-mention-"] button').click();
    await page.waitForURL(new RegExp(`/pipelines/${pipelineId}\\?thread=${thread.id}$`));
    await page.getByTestId(`thread-${thread.id}`).waitFor();
    expect(await page.getByTestId(`thread-${thread.id}`).getAttribute("class")).toContain(
      "is-on-selection",
    );
    await page.goto("/");
    await expect.poll(() => page.getByTestId("inbox-mentions-count").textContent()).toBe("0");

    // The review opens its page; once answered, it no longer waits.
    await page.locator('[data-testid^="inbox-review-"] button').click();
    await page.waitForURL(new RegExp(`/pipelines/${pipelineId}/versions/1/review$`));
    await page.getByTestId("verdict-comment").check();
    await page.getByTestId("verdict-summary").fill("Reads well.");
    await page.getByTestId("verdict-submit").click();
    await expect
      .poll(async () =>
        (await page.locator('[data-testid^="verdict-chip-"]').allTextContents()).join(),
      )
      .toContain("Comment");
    await page.goto("/");
    await expect.poll(() => page.getByTestId("inbox-reviews-count").textContent()).toBe("0");

    // The open inbox follows what arrives, without a reload or a timer.
    await api("POST", `pipelines/${pipelineId}/versions/`, ada.token, { message: "Second cut" });
    await api("POST", `pipelines/${pipelineId}/versions/2/reviews/`, ada.token, {
      reviewers: [kim.username],
    });
    await expect
      .poll(() => page.getByTestId("inbox-reviews-count").textContent(), { timeout: 5_000 })
      .toBe("1");
    await page.getByTestId(`inbox-review-${await waitingRequest(kim)}`).waitFor();

    // In her own workspace Kim is the owner and sets how it reviews.
    await page.getByRole("button", { name: `${kim.username}'s workspace` }).click();
    await page.getByTestId("policy-required").fill("2");
    await page.getByTestId("policy-approved-runs").check();
    await page.getByTestId("policy-save").click();
    await page.getByTestId("policy-saved").waitFor();
    const own = await firstWorkspaceOf(kim);
    const policy = await api<{ requiredApprovals: number; requireApprovalToRun: boolean }>(
      "GET",
      `workspaces/${own}/review-policy/`,
      kim.token,
    );
    expect([policy.requiredApprovals, policy.requireApprovalToRun]).toEqual([2, true]);
  });
});

async function waitingRequest(user: TestUser): Promise<number> {
  const waiting = await api<{ items: { request: number }[] }>("GET", "me/reviews/", user.token);
  return waiting.items[0]?.request ?? 0;
}

async function firstWorkspaceOf(user: TestUser): Promise<number> {
  const workspaces = await api<{ id: number; role: string }[]>("GET", "workspaces/", user.token);
  return workspaces.find((w) => w.role === "owner")?.id ?? 0;
}

describe("the activity feed", () => {
  it("lists what happened, newest first, a page at a time", async () => {
    const pipelineId = await newPipeline("Activity");
    await api("POST", `pipelines/${pipelineId}/versions/`, ada.token, { message: "First cut" });
    const thread = await api<{ id: number }>(
      "POST",
      `pipelines/${pipelineId}/comments/`,
      ada.token,
      {
        version: 1,
        target: { kind: "pipeline" },
        body: "Reply count: 0",
      },
    );
    for (let n = 1; n <= 30; n += 1) {
      await api("POST", `pipelines/${pipelineId}/comments/${thread.id}/replies/`, grace.token, {
        body: `Reply count: ${n}`,
      });
    }
    const page = await open(ada, pipelineId);
    await page.getByTestId("side-activity").click();
    await expect.poll(() => page.locator(".activity__item").count()).toBe(30);
    expect(await page.locator(".activity__item").first().textContent()).toContain(
      `${grace.username} replied on orders: “Reply count: 30”`,
    );
    await page.getByTestId("activity-more").click();
    await expect.poll(() => page.locator(".activity__item").count()).toBe(32);
    expect(await page.locator(".activity__item").last().textContent()).toContain(
      `${ada.username} saved version 1: “First cut”`,
    );
    await page.getByTestId("activity-more").waitFor({ state: "detached" });

    // Something new puts the feed back at its top.
    await api("POST", `pipelines/${pipelineId}/comments/${thread.id}/replies/`, grace.token, {
      body: "One more",
    });
    await expect
      .poll(async () => (await page.locator(".activity__item").first().textContent()) ?? "")
      .toContain("One more");
  });
});
