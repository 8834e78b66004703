import { describe, expect, it } from "vitest";

import { parseRoute, routePath, type Route } from "./router";

describe("routes", () => {
  it.each<[string, string, Route]>([
    ["/", "", { page: "home", workspace: null }],
    ["/", "?workspace=3", { page: "home", workspace: 3 }],
    ["/signin", "", { page: "signin" }],
    ["/pipelines/12", "", { page: "editor", pipeline: 12 }],
    ["/pipelines/12", "?thread=40", { page: "editor", pipeline: 12, thread: 40 }],
    ["/pipelines/12", "?thread=x", { page: "editor", pipeline: 12 }],
    ["/pipelines/12/versions/3/review", "", { page: "review", pipeline: 12, version: 3 }],
    [
      "/pipelines/12/versions/0/review",
      "",
      { page: "not-found", path: "/pipelines/12/versions/0/review" },
    ],
    [
      "/pipelines/12/diff",
      "?from=1&to=working",
      { page: "diff", pipeline: 12, from: 1, to: "working" },
    ],
    ["/pipelines/12/runs/5", "", { page: "run", pipeline: 12, run: 5 }],
    ["/pipelines/12/runs/x", "", { page: "not-found", path: "/pipelines/12/runs/x" }],
    ["/elsewhere", "", { page: "not-found", path: "/elsewhere" }],
  ])("%s%s", (pathname, search, route) => {
    expect(parseRoute(pathname, search)).toEqual(route);
  });

  it("writes the paths it reads", () => {
    for (const route of [
      { page: "editor", pipeline: 4 },
      { page: "diff", pipeline: 4, from: 2, to: 3 },
      { page: "home", workspace: 7 },
      { page: "run", pipeline: 4, run: 9 },
      { page: "review", pipeline: 4, version: 2 },
      { page: "editor", pipeline: 4, thread: 8 },
    ] as const) {
      const [pathname = "", search = ""] = routePath(route).split(/(?=\?)/);
      expect(parseRoute(pathname, search)).toEqual(route);
    }
  });

  it("falls back to sensible versions in a diff link", () => {
    expect(parseRoute("/pipelines/1/diff", "?from=x")).toEqual({
      page: "diff",
      pipeline: 1,
      from: 1,
      to: "working",
    });
  });
});
