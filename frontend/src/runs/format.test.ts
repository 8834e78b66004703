import { describe, expect, it } from "vitest";

import {
  formatClock,
  formatCompact,
  formatCount,
  formatDuration,
  formatShare,
  plural,
  queueTime,
  runDuration,
  spanDuration,
  sparkLinks,
} from "./format";

describe("durations", () => {
  it.each<[number | null, string]>([
    [null, "–"],
    [Number.NaN, "–"],
    [-2, "0 ms"],
    [0, "0 ms"],
    [0.0456, "46 ms"],
    [0.9994, "999 ms"],
    [1, "1.0 s"],
    [4.29, "4.2 s"],
    [9.99, "9.9 s"],
    [42.7, "42 s"],
    [59.9, "59 s"],
    [60, "1m 00s"],
    [185, "3m 05s"],
    [3599, "59m 59s"],
    [3600, "1h 00m"],
    [7380, "2h 03m"],
  ])("%s s is %s", (seconds, text) => {
    expect(formatDuration(seconds)).toBe(text);
  });

  it("times a run from its start to its end, or to now while it runs", () => {
    const startedAt = "2026-11-23T18:13:28.000Z";
    const start = Date.parse(startedAt);
    expect(runDuration({ startedAt: null, finishedAt: null }, start)).toBe(null);
    expect(runDuration({ startedAt, finishedAt: null }, start + 2500)).toBe(2.5);
    expect(runDuration({ startedAt, finishedAt: "2026-11-23T18:13:31.250Z" }, start + 60_000)).toBe(
      3.25,
    );
    expect(queueTime({ createdAt: "2026-11-23T18:13:27.500Z", startedAt })).toBe(0.5);
    expect(queueTime({ createdAt: startedAt, startedAt: null })).toBe(null);
  });

  it("times a subtask from its start to its end, or to now", () => {
    expect(spanDuration({ startTime: null, endTime: null }, 5000)).toBe(null);
    expect(spanDuration({ startTime: 2, endTime: 3.5 }, 9000)).toBe(1.5);
    expect(spanDuration({ startTime: 2, endTime: null }, 4500)).toBe(2.5);
  });
});

describe("counts", () => {
  it("groups digits in tables", () => {
    expect(formatCount(1234567)).toBe("1,234,567");
    expect(plural(1, "subtask")).toBe("1 subtask");
    expect(plural(1200, "subtask")).toBe("1,200 subtasks");
  });

  it.each<[number, string]>([
    [0, "0"],
    [999, "999"],
    [1000, "1k"],
    [12_345, "12.3k"],
    [123_456, "123k"],
    [4_500_000, "4.5M"],
    [1_200_000_000, "1.2G"],
  ])("writes %d as %s where room is tight", (n, text) => {
    expect(formatCompact(n)).toBe(text);
  });

  it.each<[number, string]>([
    [0, "0%"],
    [0.0004, "<0.1%"],
    [0.0625, "6.3%"],
    [0.5, "50%"],
  ])("writes the share %d as %s", (share, text) => {
    expect(formatShare(share)).toBe(text);
  });

  it("writes a clock time with milliseconds", () => {
    const seconds = new Date(2026, 10, 23, 18, 13, 28, 253).getTime() / 1000;
    expect(formatClock(seconds)).toBe("18:13:28.253");
    expect(formatClock(null)).toBe("–");
  });
});

describe("Spark links", () => {
  it("lists the UI, then the History Server, of the run's application", () => {
    const spark = {
      id: "app-20260101-0007",
      uiUrl: "http://spark-master:8080/app/?appId=app-20260101-0007",
      historyUrl: "http://history:18080/history/app-20260101-0007/jobs/",
    };
    expect(sparkLinks(spark).map((link) => [link.label, link.href])).toEqual([
      ["Spark UI", "http://spark-master:8080/app/?appId=app-20260101-0007"],
      ["History", "http://history:18080/history/app-20260101-0007/jobs/"],
    ]);
    expect(sparkLinks(spark)[1]?.title).toBe(
      "Application app-20260101-0007 in the Spark History Server",
    );
  });

  it("gives only the links the cluster has, and none before there is an application", () => {
    expect(sparkLinks({ id: "local-1", uiUrl: null, historyUrl: null })).toEqual([]);
    const ui = sparkLinks({ id: "app-1", uiUrl: "http://driver:4040/", historyUrl: null });
    expect(ui.map((link) => link.label)).toEqual(["Spark UI"]);
    expect(sparkLinks(null)).toEqual([]);
  });
});
