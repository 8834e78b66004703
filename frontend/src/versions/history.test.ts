import { describe, expect, it } from "vitest";

import type { VersionSummary } from "../api/resources";
import {
  defaultPair,
  diffPair,
  timeAgo,
  versionLabel,
  versionName,
  versionTitle,
  workingCopyState,
} from "./history";

function version(number: number, revision: number): VersionSummary {
  return {
    number,
    message: `v${number}`,
    revision,
    createdAt: "2025-01-01T00:00:00Z",
    author: { id: 1, username: "ada" },
  };
}

describe("labels", () => {
  it("name versions and the working copy", () => {
    expect(versionLabel(3)).toBe("version 3");
    expect(versionLabel("working")).toBe("the working copy");
    expect(versionTitle("working")).toBe("The working copy");
    expect(versionTitle(1)).toBe("Version 1");
    expect(versionName("working")).toBe("Working copy");
    expect(versionName(2)).toBe("Version 2");
  });
});

describe("comparisons", () => {
  it("put the older side first, the working copy last", () => {
    expect(diffPair(3, 1)).toEqual({ from: 1, to: 3 });
    expect(diffPair("working", 2)).toEqual({ from: 2, to: "working" });
    expect(diffPair(2, "working")).toEqual({ from: 2, to: "working" });
  });

  it("compare the last version with the working copy by default", () => {
    expect(defaultPair([], 3)).toBeNull();
    expect(defaultPair([version(1, 4), version(2, 9)], 12)).toEqual({ from: 2, to: "working" });
  });

  it("compares the two last versions when the working copy is the last one", () => {
    expect(defaultPair([version(1, 4), version(2, 9)], 9)).toEqual({ from: 1, to: 2 });
    // One version, unchanged: nothing to compare.
    expect(defaultPair([version(1, 4)], 4)).toEqual({ from: 1, to: 1 });
  });
});

describe("the working copy", () => {
  it("is unsaved before the first version", () => {
    expect(workingCopyState([], 5)).toEqual({ kind: "unsaved" });
  });

  it("is saved when the last version holds its revision", () => {
    expect(workingCopyState([version(1, 4), version(2, 9)], 9)).toEqual({
      kind: "saved",
      version: 2,
    });
  });

  it("counts the edits since the last version", () => {
    expect(workingCopyState([version(1, 4)], 7)).toEqual({ kind: "changed", version: 1, edits: 3 });
  });
});

describe("times", () => {
  const now = Date.parse("2025-03-10T12:00:00Z");

  it.each([
    ["2025-03-10T11:59:30Z", "just now"],
    ["2025-03-10T11:55:00Z", "5 min ago"],
    ["2025-03-10T09:00:00Z", "3 h ago"],
    ["2025-03-09T09:00:00Z", "1 day ago"],
    ["2025-03-07T09:00:00Z", "3 days ago"],
    ["2025-01-02T09:00:00Z", "2025-01-02"],
    ["not a time", "not a time"],
  ])("%s is %s", (iso, text) => {
    expect(timeAgo(iso, now)).toBe(text);
  });
});
