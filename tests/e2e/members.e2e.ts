/**
 * A workspace's members in the browser: an owner changes a member's role and removes
 * another, each after a confirmation that says what will happen; the last owner is told
 * why they cannot leave, and steps down once there is another owner; a member leaves.
 */

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BrowserContext, Locator, Page } from "playwright-core";

import { api, firstWorkspace, newUser, screenshot, signedIn, type TestUser } from "./support";

const contexts: BrowserContext[] = [];

interface Workspace {
  readonly id: number;
  readonly name: string;
}

interface Member {
  readonly user: { readonly id: number; readonly username: string };
  readonly role: string;
}

afterAll(async () => {
  await Promise.all(contexts.map((context) => context.close()));
});

async function addMember(owner: TestUser, workspace: Workspace, user: TestUser, role: string) {
  await api("POST", `workspaces/${workspace.id}/members/`, owner.token, {
    username: user.username,
    role,
  });
}

async function roles(owner: TestUser, workspace: Workspace): Promise<Record<string, string>> {
  const members = await api<Member[]>("GET", `workspaces/${workspace.id}/members/`, owner.token);
  return Object.fromEntries(members.map((m) => [m.user.username, m.role]));
}

async function openHome(user: TestUser, workspace: Workspace): Promise<Page> {
  const { context, page } = await signedIn(user);
  contexts.push(context);
  await page.goto(`/?workspace=${workspace.id}`);
  await page.getByTestId("members-section").getByText(user.username).waitFor();
  return page;
}

/** The confirmation asked in the page, its text once it shows. */
async function confirmation(page: Page): Promise<string> {
  const box = page.getByRole("alertdialog");
  await box.waitFor();
  return (await box.textContent()) ?? "";
}

function confirmButton(page: Page, name: string): Locator {
  return page.getByRole("alertdialog").getByRole("button", { name, exact: true });
}

describe("an owner manages members", () => {
  let ada: TestUser;
  let bob: TestUser;
  let cy: TestUser;
  let workspace: Workspace;

  beforeAll(async () => {
    [ada, bob, cy] = await Promise.all([newUser("ada"), newUser("bob"), newUser("cy")]);
    workspace = await firstWorkspace(ada);
    await addMember(ada, workspace, bob, "editor");
    await addMember(ada, workspace, cy, "viewer");
  });

  it("is refused leaving as the last owner, with the reason in the page", async () => {
    const page = await openHome(ada, workspace);
    const section = page.getByTestId("members-section");
    expect(await section.textContent()).toContain("1 owner, 1 editor, 1 viewer");

    await page.getByTestId("leave-workspace").click();
    expect(await confirmation(page)).toContain(
      `You will lose access to every pipeline of ${workspace.name}`,
    );
    await confirmButton(page, "Leave workspace").click();
    const refusal = page.getByRole("alertdialog").getByRole("alert");
    await refusal.waitFor();
    expect(await refusal.textContent()).toBe(
      `You are the last owner of ${workspace.name}: make another member an owner first, ` +
        "or delete the workspace.",
    );
    await confirmButton(page, "Close").click();
    await page.getByRole("alertdialog").waitFor({ state: "detached" });
    expect((await roles(ada, workspace))[ada.username]).toBe("owner");
  });

  it("changes a role and removes a member, each once confirmed", async () => {
    const page = await openHome(ada, workspace);

    // Cancelling changes nothing.
    await page.getByTestId(`member-remove-${cy.username}`).click();
    expect(await confirmation(page)).toContain(
      `${cy.username} will lose access to every pipeline of ${workspace.name}`,
    );
    await confirmButton(page, "Cancel").click();
    await page.getByRole("alertdialog").waitFor({ state: "detached" });
    expect((await roles(ada, workspace))[cy.username]).toBe("viewer");

    await page.getByTestId(`member-role-${bob.username}`).selectOption("owner");
    expect(await confirmation(page)).toContain(
      `${bob.username} will be able to add and remove members of ${workspace.name}`,
    );
    // Nothing changes before the confirmation.
    expect((await roles(ada, workspace))[bob.username]).toBe("editor");
    await confirmButton(page, `Make ${bob.username} an owner`).click();
    await expect
      .poll(() => page.getByTestId("members-notice").textContent())
      .toBe(`${bob.username} is now an owner of ${workspace.name}.`);
    expect(await page.getByTestId(`member-role-${bob.username}`).inputValue()).toBe("owner");
    expect((await roles(ada, workspace))[bob.username]).toBe("owner");

    await page.getByTestId(`member-remove-${cy.username}`).click();
    await confirmation(page);
    await screenshot(page, "members-confirm-removal");
    await confirmButton(page, `Remove ${cy.username}`).click();
    await page.getByTestId(`member-${cy.username}`).waitFor({ state: "detached" });
    expect(await roles(ada, workspace)).toEqual({
      [ada.username]: "owner",
      [bob.username]: "owner",
    });
  });

  it("confirms an owner stepping down, and takes the owner's controls away", async () => {
    const page = await openHome(ada, workspace);

    await page.getByTestId(`member-role-${ada.username}`).selectOption("editor");
    expect(await confirmation(page)).toContain("Only another owner can make you an owner again.");
    await confirmButton(page, "Become an editor").click();

    await page.getByTestId(`member-role-${bob.username}`).waitFor({ state: "detached" });
    expect(await page.getByTestId(`member-${ada.username}`).textContent()).toContain("editor");
    expect(await page.getByTestId(`member-remove-${bob.username}`).count()).toBe(0);
    expect((await roles(ada, workspace))[ada.username]).toBe("editor");
  });
});

describe("a member", () => {
  it("leaves a workspace, which leaves their list", async () => {
    const [ada, grace] = await Promise.all([newUser("ada"), newUser("grace")]);
    const workspace = await firstWorkspace(ada);
    const own = await firstWorkspace(grace);
    await addMember(ada, workspace, grace, "viewer");
    const page = await openHome(grace, workspace);
    const list = page.locator(".workspace-list");
    await list.getByText(workspace.name).waitFor();
    // A viewer changes nobody's membership.
    expect(await page.getByTestId(`member-remove-${ada.username}`).count()).toBe(0);
    expect(await page.getByTestId(`member-role-${ada.username}`).count()).toBe(0);

    await page.getByTestId("leave-workspace").click();
    expect(await confirmation(page)).toContain(`Leave ${workspace.name}?`);
    await screenshot(page, "members-leave");
    await confirmButton(page, "Leave workspace").click();

    await list.getByText(workspace.name).waitFor({ state: "detached" });
    expect(await page.getByTestId("home-notice").textContent()).toBe(`You left ${workspace.name}.`);
    await list.getByText(own.name).waitFor();
    const left = await api<Workspace[]>("GET", "workspaces/", grace.token);
    expect(left.map((w) => w.id)).toEqual([own.id]);
    expect(Object.keys(await roles(ada, workspace))).toEqual([ada.username]);
  });
});
