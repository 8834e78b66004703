import { describe, expect, it } from "vitest";

import { recordedCheck } from "../test-support/savepoints";
import { checkedText, notCompiledVerdict, restoreVerdict } from "./verdict";

describe("the verdict", () => {
  it("fails in the server's words, saying that allowing non-restored state would do", () => {
    const verdict = restoreVerdict(recordedCheck("counting--sum-parallelism"));
    expect(verdict.tone).toBe("fails");
    expect(verdict.title).toBe("Fails: state of Sum (c27dcf7b...) has no operator in this version");
    expect(verdict.details[0]).toBe(
      "It would restore allowing non-restored state, dropping the state of Sum (c27dcf7b…).",
    );
    expect(verdict.details[1]).toMatch(/^Flink says: Cannot map checkpoint\/savepoint state /);
  });

  it("says when allowing non-restored state would not help", () => {
    const check = {
      ...recordedCheck("counting--sum-parallelism"),
      restoresAllowingNonRestoredState: false,
    };
    expect(restoreVerdict(check).details[0]).toMatch(/would not help/);
  });

  it("restores in green, or drops what is allowed to go", () => {
    const failing = recordedCheck("counting--sum-parallelism");
    const restored = {
      ...failing,
      restores: true,
      verdict: "Restores",
      failure: null,
      operators: failing.operators.filter((row) => row.outcome !== "lost"),
    };
    expect(restoreVerdict(restored)).toEqual({ tone: "restores", title: "Restores", details: [] });

    const dropping = {
      ...failing,
      restores: true,
      allowNonRestoredState: true,
      verdict: "Restores, dropping the state of 1 operator",
      failure: null,
    };
    const verdict = restoreVerdict(dropping);
    expect(verdict.tone).toBe("dropping");
    expect(verdict.details).toEqual([
      "Dropped because unclaimed state is allowed: the state of Sum (c27dcf7b…).",
    ]);
  });

  it("of a version that does not compile says so, with the server's message", () => {
    const verdict = notCompiledVerdict("The working copy does not compile, so ...");
    expect(verdict.tone).toBe("not-compiled");
    expect(verdict.title).toMatch(/^Does not compile/);
    expect(verdict.details).toEqual(["The working copy does not compile, so ..."]);
  });
});

describe("what was checked", () => {
  it("names the working copy's revision or the version, and what explains lost state", () => {
    const check = recordedCheck("counting--insert-map");
    expect(checkedText(check)).toBe(
      "The working copy at revision 9, against “production 2026-11-20”; lost state " +
        "explained by version 1, which wrote it.",
    );
    expect(checkedText({ ...check, checked: 3, revision: null, comparedWith: null })).toBe(
      "Version 3, against “production 2026-11-20”.",
    );
  });
});
