import { describe, expect, it } from "vitest";

import { savepointSummary } from "../test-support/savepoints";
import { formatBytes, savepointFacts, shownSavepoint, stateOwnerText, stateText } from "./format";

describe("sizes", () => {
  it("are bytes below a KiB and binary units above, one decimal below ten", () => {
    expect(formatBytes(0)).toBe("0 B");
    expect(formatBytes(546)).toBe("546 B");
    expect(formatBytes(1024)).toBe("1 KiB");
    expect(formatBytes(3253)).toBe("3.2 KiB");
    expect(formatBytes(64 * 1024 * 1024)).toBe("64 MiB");
    expect(formatBytes(1536 * 1024 * 1024)).toBe("1.5 GiB");
  });
});

describe("state", () => {
  it("names each kind with its size, or says there is none", () => {
    expect(
      stateText([
        { kind: "operator-list", bytes: 530 },
        { kind: "coordinator", bytes: 16 },
      ]),
    ).toBe("list 530 B, coordinator 16 B");
    expect(stateText([{ kind: "keyed", bytes: 3253 }])).toBe("keyed 3.2 KiB");
    expect(stateText([])).toBe("no state");
  });

  it("is owned by the savepoint's name for the operator, or its short ID", () => {
    const id = "c27dcf7b54ef6bfd6cff02ca8870b681";
    expect(stateOwnerText("Sum", id)).toBe("Sum (c27dcf7b…)");
    expect(stateOwnerText(null, id)).toBe("operator c27dcf7b…");
  });
});

describe("a savepoint in the list", () => {
  it("says when, by whom, how large, which format and how many operators", () => {
    const now = Date.parse("2026-11-20T09:33:00Z");
    expect(savepointFacts(savepointSummary(), now)).toBe(
      "3 min ago by ada · 6.3 KiB · format 6 · 6 operators",
    );
    expect(
      savepointFacts(savepointSummary({ uploadedBy: null, operatorCount: 1, writtenBy: 2 }), now),
    ).toBe("3 min ago by a former member · 6.3 KiB · format 6 · 1 operator · written by version 2");
  });

  it("shown is the one picked, else the current one, else the newest", () => {
    const newest = savepointSummary({ id: 3 });
    const oldest = savepointSummary({ id: 1 });
    const list = [newest, savepointSummary({ id: 2, isCurrent: true }), oldest];
    expect(shownSavepoint(list, 1)).toBe(1);
    expect(shownSavepoint(list, null)).toBe(2);
    expect(shownSavepoint(list, 9)).toBe(2);
    expect(shownSavepoint([newest, oldest], null)).toBe(3);
    expect(shownSavepoint([], 1)).toBeNull();
  });
});
