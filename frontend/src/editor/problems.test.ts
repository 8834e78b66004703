import { describe, expect, it } from "vitest";

import { noProblemsText } from "./problems";

describe("noProblemsText", () => {
  it("says how to start when the pipeline has no operators", () => {
    expect(noProblemsText(0)).toMatch(/^The pipeline is empty: drag a source/);
    expect(noProblemsText(0)).not.toContain("what Flink will run");
  });

  it("says the plan is what Flink will run when there are operators", () => {
    expect(noProblemsText(3)).toBe("No problems: this is what Flink will run.");
  });
});
