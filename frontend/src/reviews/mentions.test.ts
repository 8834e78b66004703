import { describe, expect, it } from "vitest";

import { ADA, GRACE } from "../test-support/reviews";
import { bodyParts, mentionedNames } from "./mentions";

describe("mentions", () => {
  it.each([
    ["@ada and @grace, please", ["ada", "grace"]],
    ["Ask @Ada. Then @ada again.", ["Ada"]],
    ["mail ann@example.com, not @ann", ["ann"]],
    ["@j.doe+ops-1_x.", ["j.doe+ops-1_x"]],
    ["@@double and (@paren)", ["paren"]],
    ["@. nothing", []],
    ["@zoë counts", ["zoë"]],
  ])("are found in %j as the server finds them", (text, names) => {
    expect(mentionedNames(text)).toEqual(names);
  });

  it("cut a body into text and the members it names", () => {
    expect(bodyParts("Why, @ada? Ask @Grace. and @nobody", [ADA, GRACE])).toEqual([
      { kind: "text", text: "Why, " },
      { kind: "mention", text: "@ada", member: ADA },
      { kind: "text", text: "? Ask " },
      { kind: "mention", text: "@Grace", member: GRACE },
      { kind: "text", text: ". and " },
      { kind: "mention", text: "@nobody", member: null },
    ]);
  });

  it("leave a body without mentions whole", () => {
    expect(bodyParts("no one here: a@b.c", [ADA])).toEqual([
      { kind: "text", text: "no one here: a@b.c" },
    ]);
    expect(bodyParts("", [])).toEqual([]);
  });
});
