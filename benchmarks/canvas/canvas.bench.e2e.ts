/**
 * How fast the canvas is in a real browser, against the real server:
 *
 * - load: from navigation to a 300- and a 1,000-operator pipeline fully drawn
 *   (every operator and every edge in the DOM, and the frame that shows them
 *   rendered: style, layout and paint included), in a fresh browser context each
 *   time, so the bundle is fetched and parsed as on a first visit;
 * - edit: from the Enter key that commits a parallelism change in the properties
 *   panel to the operator on the canvas showing it (the DOM mutation, and the
 *   frame after it rendered).
 *
 * Beside the medians and ranges it prints where a load's time went: when the
 * scripts had arrived, when the server's snapshot did, and the page's main-thread
 * CPU time by kind (Chrome's own counters, in thread time: less sensitive to
 * other work on the machine than the wall-clock figures). Goals are in the
 * issue, not asserted here.
 */

import { availableParallelism, loadavg } from "node:os";

import { beforeAll, describe, it } from "vitest";
import type { CDPSession, Page } from "playwright-core";

import { api, firstWorkspace, newUser, signedIn, type TestUser } from "../../tests/e2e/support";

const LOADS = 5;
const EDITS = 25;
const SIZES = [300, 1000] as const;
const LANE = 5;
const COLUMN_WIDTH = 5 * 230 + 120;
const ROW_HEIGHT = 110;

interface Figures {
  readonly min: number;
  readonly median: number;
  readonly p95: number;
  readonly max: number;
}

function figures(values: readonly number[]): Figures {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number): number =>
    sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
  return { min: sorted[0] ?? NaN, median: at(0.5), p95: at(0.95), max: sorted.at(-1) ?? NaN };
}

function show(label: string, f: Figures, unit = "ms"): string {
  const n = (value: number): string => value.toFixed(value < 20 ? 2 : 0);
  return `${label.padEnd(44)} median ${n(f.median)} ${unit}  (min ${n(f.min)}, p95 ${n(f.p95)}, max ${n(f.max)})`;
}

/**
 * `operators` operators in lanes of five: sequence -> map -> filter -HASH-> reduce
 * -REBALANCE-> print, at stored positions (a pipeline opens where it was left), in a
 * grid about as wide as a screen is.
 */
function pipeline(operators: number): { document: unknown; edges: number } {
  const lanes = Math.ceil(operators / LANE);
  const columns = Math.max(1, Math.round(Math.sqrt((1.6 * lanes * ROW_HEIGHT) / COLUMN_WIDTH)));
  const nodes: unknown[] = [];
  const edges: unknown[] = [];
  for (let lane = 0; lane < lanes; lane += 1) {
    const x0 = (lane % columns) * COLUMN_WIDTH;
    const y = Math.floor(lane / columns) * ROW_HEIGHT;
    const first = lane * LANE + 1;
    const specs = [
      {
        name: `Source: Events ${lane}`,
        operator: "source.sequence",
        params: { from: 1, to: 1000 },
        parallelism: 2,
      },
      { name: "Parse", operator: "map", params: { fn: "x * 2" }, parallelism: 2 },
      { name: "Valid", operator: "filter", params: { predicate: "x % 3 != 0" }, parallelism: 2 },
      { name: "Count", operator: "reduce", params: { fn: "a + b" }, parallelism: 4 },
      { name: "Sink: Out", operator: "sink.print", params: {}, parallelism: 1 },
    ];
    specs.forEach((spec, offset) => {
      nodes.push({ id: first + offset, ...spec, ui: { x: x0 + offset * 230, y } });
    });
    edges.push(
      { source: first, target: first + 1, partitioner: "FORWARD" },
      { source: first + 1, target: first + 2, partitioner: "FORWARD" },
      { source: first + 2, target: first + 3, partitioner: "HASH", key: { fn: "x % 10" } },
      { source: first + 3, target: first + 4, partitioner: "REBALANCE" },
    );
  }
  return {
    document: {
      format: "streamgraph/v1",
      name: `canvas-${operators}`,
      config: { defaultParallelism: 2 },
      nodes,
      edges,
    },
    edges: edges.length,
  };
}

let user: TestUser;
const pipelines = new Map<number, { id: number; edges: number }>();

beforeAll(async () => {
  user = await newUser("bench");
  const workspace = await firstWorkspace(user);
  for (const size of SIZES) {
    const { document, edges } = pipeline(size);
    const made = await api<{ id: number }>("POST", "pipelines/import/", user.token, {
      workspace: workspace.id,
      content: document,
    });
    pipelines.set(size, { id: made.id, edges });
  }
});

interface Drawing {
  /** Everything in the DOM. */
  inDomAt: number;
  /** The frame after that rendered. */
  drawnAt: number;
  /** The co-editing snapshot received (the first websocket message). */
  snapshotAt: number;
  snapshotKb: number;
}

/**
 * Installs, before any page script runs, a watcher that notes when everything is
 * drawn: the DOM complete, then the first task after the next frame, which runs
 * once that frame's style, layout and paint are done.
 */
async function watchDrawing(page: Page, nodes: number, edges: number): Promise<void> {
  await page.addInitScript(
    ({ nodes, edges }: { nodes: number; edges: number }) => {
      const state: Drawing = { inDomAt: -1, drawnAt: -1, snapshotAt: -1, snapshotKb: 0 };
      (window as unknown as { benchDrawing: typeof state }).benchDrawing = state;
      const Socket = window.WebSocket;
      window.WebSocket = class extends Socket {
        constructor(url: string | URL, protocols?: string | string[]) {
          super(url, protocols);
          this.addEventListener("message", (event: MessageEvent<unknown>) => {
            if (state.snapshotAt < 0) {
              state.snapshotAt = performance.now();
              state.snapshotKb = String(event.data).length / 1024;
            }
          });
        }
      };
      const operators = document.getElementsByClassName("react-flow__node-operator");
      const lines = document.getElementsByClassName("react-flow__edge");
      const observer = new MutationObserver(() => {
        if (operators.length >= nodes && lines.length >= edges) {
          observer.disconnect();
          state.inDomAt = performance.now();
          requestAnimationFrame(() => {
            const after = new MessageChannel();
            after.port1.onmessage = () => {
              state.drawnAt = performance.now();
            };
            after.port2.postMessage(null);
          });
        }
      });
      observer.observe(document, { childList: true, subtree: true });
    },
    { nodes, edges },
  );
}

/** The page's main-thread CPU time so far, by kind, in ms (Chrome's Performance domain). */
async function cpuTimes(cdp: CDPSession): Promise<Record<string, number>> {
  const { metrics } = await cdp.send("Performance.getMetrics");
  const times: Record<string, number> = {};
  for (const { name, value } of metrics) {
    if (name.endsWith("Duration")) {
      times[name.replace(/Duration$/, "")] = value * 1000;
    }
  }
  return times;
}

interface Load {
  readonly drawn: number;
  readonly inDom: number;
  readonly scripts: number;
  readonly snapshot: number;
  readonly snapshotKb: number;
  readonly scriptKb: number;
  /** Main-thread CPU ms by kind (Task is all of it). */
  readonly cpu: Record<string, number>;
}

async function loadOnce(size: number): Promise<Load> {
  const made = pipelines.get(size);
  if (made === undefined) {
    throw new Error(`no pipeline of ${size} operators`);
  }
  const { context, page } = await signedIn(user);
  try {
    const cdp = await context.newCDPSession(page);
    await cdp.send("Performance.enable", { timeDomain: "threadTicks" });
    await watchDrawing(page, size, made.edges);
    await page.goto(`/pipelines/${made.id}`);
    await page.waitForFunction(
      () => (window as unknown as { benchDrawing: Drawing }).benchDrawing.drawnAt >= 0,
      undefined,
      { timeout: 60_000, polling: 50 },
    );
    const cpu = await cpuTimes(cdp);
    const timings = await page.evaluate(() => {
      const scripts = performance
        .getEntriesByType("resource")
        .filter((entry) => entry.name.endsWith(".js")) as PerformanceResourceTiming[];
      const drawing = (window as unknown as { benchDrawing: Drawing }).benchDrawing;
      return {
        drawn: drawing.drawnAt,
        inDom: drawing.inDomAt,
        scripts: Math.max(...scripts.map((entry) => entry.responseEnd)),
        snapshot: drawing.snapshotAt,
        snapshotKb: drawing.snapshotKb,
        scriptKb: scripts.reduce((sum, entry) => sum + entry.encodedBodySize, 0) / 1024,
      };
    });
    return { ...timings, cpu };
  } finally {
    await context.close();
  }
}

async function editTimes(
  size: number,
): Promise<{ dom: number[]; frame: number[]; saved: number[] }> {
  const made = pipelines.get(size);
  if (made === undefined) {
    throw new Error(`no pipeline of ${size} operators`);
  }
  const { context, page } = await signedIn(user);
  try {
    // The save state, found by its test id: a text search would scan the whole canvas
    // on every poll, on the page's main thread, while the edits are being timed.
    const saved = page.getByTestId("save-state").filter({ hasText: /Saved · rev \d+/ });
    await page.goto(`/pipelines/${made.id}`);
    await saved.waitFor();
    // The first lane's sink: its parallelism can change without touching any FORWARD edge.
    const sink = 5;
    await page.getByTestId(`node-${sink}`).click();
    const field = page.getByTestId("prop-parallelism");
    await field.waitFor();
    await page.evaluate((sink: number) => {
      const state = { start: -1, dom: [] as number[], frame: [] as number[] };
      (window as unknown as { benchEdit: typeof state }).benchEdit = state;
      document.addEventListener(
        "keydown",
        (event) => {
          if (event.key === "Enter") {
            state.start = event.timeStamp;
          }
        },
        true,
      );
      const target = document.querySelector(`.react-flow__node[data-id="${sink}"]`);
      if (target === null) {
        throw new Error("the sink is not on the canvas");
      }
      new MutationObserver(() => {
        if (state.start < 0) {
          return;
        }
        const start = state.start;
        state.start = -1;
        state.dom.push(performance.now() - start);
        requestAnimationFrame(() => {
          const after = new MessageChannel();
          after.port1.onmessage = () => state.frame.push(performance.now() - start);
          after.port2.postMessage(null);
        });
      }).observe(target, { childList: true, subtree: true, characterData: true, attributes: true });
    }, sink);
    const answered: number[] = [];
    for (let round = 0; round < EDITS; round += 1) {
      await field.fill(String(2 + (round % 2)));
      const pressed = Date.now();
      await field.press("Enter");
      await saved.waitFor();
      answered.push(Date.now() - pressed);
      await page.waitForTimeout(30);
    }
    const times = await page.evaluate(() => {
      const state = (window as unknown as { benchEdit: { dom: number[]; frame: number[] } })
        .benchEdit;
      return { dom: state.dom, frame: state.frame };
    });
    return { ...times, saved: answered };
  } finally {
    await context.close();
  }
}

describe("canvas", () => {
  it("loads and edits large pipelines", async () => {
    const lines: string[] = [];
    for (const size of SIZES) {
      await loadOnce(size); // warm the server's caches, not the browser's
      const runs: Load[] = [];
      for (let run = 0; run < LOADS; run += 1) {
        runs.push(await loadOnce(size));
      }
      const median = (pick: (load: Load) => number): number => figures(runs.map(pick)).median;
      const ms = (value: number): string => `${Math.round(value)} ms`;
      lines.push(show(`navigation -> ${size} operators drawn`, figures(runs.map((r) => r.drawn))));
      lines.push(
        `${"".padEnd(44)} medians: scripts in ${ms(median((r) => r.scripts))}, snapshot in ` +
          `${ms(median((r) => r.snapshot))}, all in the DOM ${ms(median((r) => r.inDom))}`,
      );
      lines.push(
        `${"".padEnd(44)} main-thread CPU: ${ms(median((r) => r.cpu.Task ?? NaN))} ` +
          `(script ${ms(median((r) => r.cpu.Script ?? NaN))}, style ` +
          `${ms(median((r) => r.cpu.RecalcStyle ?? NaN))}, layout ` +
          `${ms(median((r) => r.cpu.Layout ?? NaN))})`,
      );
      lines.push(
        `${"".padEnd(44)} JavaScript fetched: ${Math.round(runs[0]?.scriptKb ?? 0)} kB, ` +
          `snapshot ${Math.round(runs[0]?.snapshotKb ?? 0)} kB`,
      );
    }
    const edits = await editTimes(1000);
    lines.push(show("edit -> DOM commit (1,000 operators)", figures(edits.dom)));
    lines.push(show("edit -> next frame (1,000 operators)", figures(edits.frame)));
    lines.push(show("edit -> saved, server answered (1,000 ops)", figures(edits.saved)));
    const load = loadavg()
      .map((value) => value.toFixed(1))
      .join(" ");
    console.log(
      `\nCanvas benchmark (headless Chromium, ${LOADS} cold loads, ${EDITS} edits; ` +
        `load average now ${load} on ${availableParallelism()} CPUs)\n${lines.join("\n")}\n`,
    );
  });
});
