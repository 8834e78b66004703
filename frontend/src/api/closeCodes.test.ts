import { describe, expect, it } from "vitest";

import { refusalText } from "./closeCodes";

describe("refusalText", () => {
  it("says why the server refused a socket", () => {
    expect(refusalText(4401, "pipeline", "edit")).toBe(
      "You are signed out. Sign in again to edit.",
    );
    expect(refusalText(4403, "run", "follow this run")).toMatch(/this page's address/);
    expect(refusalText(4404, "run", "follow this run")).toBe(
      "This run does not exist, or you are not a member of its workspace (any more).",
    );
  });

  it("is null for a dropped connection, which is worth reconnecting", () => {
    expect(refusalText(1006, "pipeline", "edit")).toBeNull();
    expect(refusalText(1011, "run", "follow this run")).toBeNull();
  });
});
