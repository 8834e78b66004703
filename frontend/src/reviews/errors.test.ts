import { describe, expect, it } from "vitest";

import { ApiError } from "../api/http";
import { errorLines } from "./errors";

describe("error lines", () => {
  it("give the message, then what the fields add to it", () => {
    const unknown = new ApiError(
      400,
      "unknown-mention",
      "@bob is not a member of this workspace.",
      [],
      {
        body: ["@bob is not a member of this workspace."],
      },
    );
    expect(errorLines(unknown)).toEqual(["@bob is not a member of this workspace."]);
    const gate = new ApiError(
      400,
      "state-not-acknowledged",
      "Acknowledge exactly Total (ab).",
      [],
      {
        acknowledged: ["Total (node 3, ab): its OperatorID changed", "Sum (node 5, cd): removed"],
      },
    );
    expect(errorLines(gate)).toEqual([
      "Acknowledge exactly Total (ab).",
      "Total (node 3, ab): its OperatorID changed",
      "Sum (node 5, cd): removed",
    ]);
  });

  it("say what anything else is", () => {
    expect(errorLines(new Error("boom"))).toEqual(["Error: boom"]);
  });
});
