import { describe, expect, it } from "vitest";

import { ADA, comment, counts, GRACE, summary, thread, VERTEX } from "../test-support/reviews";
import {
  countByFilter,
  countText,
  ElementCounts,
  filterOf,
  mayChange,
  mayResolve,
  SidedCounts,
  type Viewer,
} from "./threads";

const ada: Viewer = { user: ADA, role: "viewer" };
const grace: Viewer = { user: GRACE, role: "editor" };

describe("threads", () => {
  it("fall under open, outdated or resolved, as the server counts them", () => {
    const threads = [
      thread(1),
      thread(2, { outdated: true }),
      thread(3, { status: "resolved", outdated: true }),
      thread(4, { status: "resolved" }),
    ];
    expect(threads.map(filterOf)).toEqual(["open", "outdated", "resolved", "resolved"]);
    expect(countByFilter(threads)).toEqual({ open: 1, outdated: 1, resolved: 2 });
  });

  it("are resolved by editors, owners and their author", () => {
    const adas = thread(1, { createdBy: ADA });
    const graces = thread(2, { createdBy: GRACE });
    expect(mayResolve(adas, ada)).toBe(true);
    expect(mayResolve(graces, ada)).toBe(false);
    expect(mayResolve(adas, grace)).toBe(true);
    expect(mayResolve(graces, { user: ADA, role: "owner" })).toBe(true);
    expect(mayResolve(adas, null)).toBe(false);
  });

  it("have comments only their author changes, until deleted", () => {
    expect(mayChange(comment(1, { author: ADA }), ada)).toBe(true);
    expect(mayChange(comment(1, { author: ADA }), grace)).toBe(false);
    expect(mayChange(comment(1, { author: ADA, deleted: true }), ada)).toBe(false);
    expect(mayChange(comment(1, { author: null }), ada)).toBe(false);
  });
});

describe("element counts", () => {
  const counted = new ElementCounts(
    summary({
      nodes: [
        { node: 3, ...counts(1, 1, 4) },
        { node: 4, ...counts(0, 0, 2) },
      ],
      edges: [{ edge: [2, 3, 0, 0], ...counts(2) }],
      vertices: [
        { head: 1, vertex: VERTEX, ...counts(0, 1) },
        { head: 5, vertex: null, ...counts(3) },
      ],
    }),
  );

  it("give each element its open threads, current and outdated", () => {
    expect(counted.of({ kind: "node", node: 3 })).toEqual({ open: 1, outdated: 1 });
    expect(counted.of({ kind: "edge", edge: "2-3-0-0" })).toEqual({ open: 2, outdated: 0 });
    expect(counted.of({ kind: "chain", vertex: VERTEX })).toEqual({ open: 0, outdated: 1 });
  });

  it("give nothing to elements with only resolved threads, or none", () => {
    expect(counted.of({ kind: "node", node: 4 })).toBeNull();
    expect(counted.of({ kind: "node", node: 1 })).toBeNull();
    expect(counted.of({ kind: "edge", edge: "1-2-0-0" })).toBeNull();
    expect(new ElementCounts(null).of({ kind: "node", node: 3 })).toBeNull();
  });

  it("read in words", () => {
    expect(countText({ open: 1, outdated: 0 })).toBe("1 open thread");
    expect(countText({ open: 1, outdated: 2 })).toBe("3 open threads (2 outdated)");
  });
});

describe("the counts of a diff", () => {
  const newer = new ElementCounts(
    summary({
      nodes: [{ node: 3, ...counts(0, 2) }],
      edges: [{ edge: [1, 2, 0, 0], ...counts(1) }],
    }),
  );
  const older = new ElementCounts(
    summary({ nodes: [{ node: 3, ...counts(1) }], edges: [{ edge: [1, 2, 0, 0], ...counts(4) }] }),
  );

  it("are the newer version's for its elements and the older one's for those it removed", () => {
    const removed = { nodes: new Set([3]), edges: new Set<string>() };
    const sided = new SidedCounts(newer, older, removed);
    expect(sided.of({ kind: "node", node: 3 })).toEqual({ open: 1, outdated: 0 });
    expect(sided.of({ kind: "edge", edge: "1-2-0-0" })).toEqual({ open: 1, outdated: 0 });
    const edgeRemoved = new SidedCounts(newer, older, {
      nodes: new Set<number>(),
      edges: new Set(["1-2-0-0"]),
    });
    expect(edgeRemoved.of({ kind: "edge", edge: "1-2-0-0" })).toEqual({ open: 4, outdated: 0 });
    expect(edgeRemoved.of({ kind: "node", node: 3 })).toEqual({ open: 0, outdated: 2 });
  });
});
