import { describe, expect, it } from "vitest";

import type { RunExchange, RunExecution, RunStage } from "../api/runs";
import { MAP_VERTEX, SINK_VERTEX } from "../test-support/runs";
import {
  engineRows,
  engineSentence,
  exchangeRows,
  executionSentence,
  noExecutionText,
  stageOrderNote,
  stageRows,
} from "./execution";

const SOURCE = { node: 1, name: "Source: Numbers" };
const PAIR = { node: 2, name: "Pair" };
const SUM = { node: 3, name: "Sum" };
const SINK = { node: 4, name: "Sink: Sums" };

function stage(overrides: Partial<RunStage> & Pick<RunStage, "number">): RunStage {
  return {
    vertices: [],
    edge: null,
    reads: [],
    writes: [],
    after: [],
    status: "planned",
    stageId: null,
    attempts: 0,
    submitted: null,
    completed: null,
    ...overrides,
  };
}

function exchange(overrides: Partial<RunExchange> & Pick<RunExchange, "edge">): RunExchange {
  return {
    source: SOURCE,
    target: PAIR,
    partitioner: "FORWARD",
    resultPartitionType: null,
    handoff: "in-task",
    producerStage: 1,
    consumerStage: 1,
    ...overrides,
  };
}

/** The run of tests/e2e/runs.e2e.ts: source -> pair (chained) -HASH-> sum -> sink (chained). */
function counts(overrides: Partial<RunExecution> = {}): RunExecution {
  return {
    executor: "spark",
    runtimeMode: "STREAMING",
    sources: [SOURCE],
    stagesReported: false,
    stages: [
      stage({ number: 1, vertices: [MAP_VERTEX] }),
      stage({ number: 2, vertices: [SINK_VERTEX], after: [1] }),
    ],
    exchanges: [
      exchange({ edge: 0 }),
      exchange({
        edge: 1,
        source: PAIR,
        target: SUM,
        partitioner: "HASH",
        resultPartitionType: "PIPELINED_BOUNDED",
        handoff: "shuffle",
        consumerStage: 2,
      }),
      exchange({ edge: 2, source: SUM, target: SINK, producerStage: 2, consumerStage: 2 }),
    ],
    engines: [],
    ...overrides,
  };
}

const FIRST = stage({
  number: 1,
  vertices: [MAP_VERTEX],
  status: "finished",
  stageId: 4,
  attempts: 1,
  submitted: 10,
  completed: 11,
});
const SECOND = stage({
  number: 2,
  vertices: [SINK_VERTEX],
  after: [1],
  status: "finished",
  stageId: 5,
  attempts: 1,
  submitted: 12,
  completed: 13,
});
const ran: RunStage[] = [FIRST, SECOND];

describe("the execution sentence", () => {
  it("says a STREAMING pipeline ran as a bounded batch job, stage after stage", () => {
    expect(executionSentence(counts({ stagesReported: true, stages: ran }))).toBe(
      "Spark ran this STREAMING pipeline as a bounded batch job: its source read its whole " +
        "input, 2 stages ran one after the other; 1 exchange was materialised between stages " +
        "(HASH into Sum), and 2 chained edges stayed in one task. Flink plans " +
        "PIPELINED_BOUNDED for it: records stream through as they are produced, producer and " +
        "consumer running at the same time.",
    );
  });

  it("tells the plan's order, as the plan's, until the stages are reported", () => {
    expect(executionSentence(counts())).toBe(
      "Spark runs this STREAMING pipeline as a bounded batch job: its source reads its whole " +
        "input, 2 stages run one after the other, in the order the plan implies; 1 exchange " +
        "is materialised between stages (HASH into Sum), and 2 chained edges stay in one " +
        "task. Flink plans PIPELINED_BOUNDED for it: records stream through as they are " +
        "produced, producer and consumer running at the same time.",
    );
  });

  it("says BLOCKING is what Flink plans in BATCH mode too", () => {
    const batch = counts({
      runtimeMode: "BATCH",
      stagesReported: true,
      stages: ran,
      exchanges: counts().exchanges.map((item) =>
        item.resultPartitionType === null ? item : { ...item, resultPartitionType: "BLOCKING" },
      ),
    });
    const sentence = executionSentence(batch);
    expect(sentence).toContain("Spark ran this BATCH pipeline as a bounded batch job");
    expect(sentence).toContain(
      "Flink plans BLOCKING for it: materialised whole before the consumer starts.",
    );
  });

  it("does not claim stages ran one after the other when they overlapped", () => {
    const overlapping = [
      { ...FIRST, submitted: 10, completed: 14 },
      { ...SECOND, after: [], submitted: 10.5, completed: 12 },
      stage({ number: 3, after: [1, 2], status: "finished", submitted: 14.5, completed: 15 }),
    ];
    expect(executionSentence(counts({ stagesReported: true, stages: overlapping }))).toContain(
      "3 stages ran, each once the stages it reads had finished;",
    );
  });

  it("claims no exchange its failed stage did not finish writing", () => {
    const failed = { ...FIRST, status: "failed" as const };
    const stages = [failed, stage({ number: 2, after: [1], status: "not-run" })];
    const execution = counts({ stagesReported: true, stages });
    expect(executionSentence(execution)).toContain(
      "its source read its whole input, 1 of 2 stages began before the run ended; 1 exchange " +
        "was not materialised, as the stage writing it did not finish (HASH into Sum), and " +
        "2 chained edges stayed in one task.",
    );
    expect(exchangeRows(execution)[1]?.executed).toBe("shuffle, not materialised: stage 1 failed");
    // One written before the run failed, one not.
    const partly = counts({
      stagesReported: true,
      stages: [
        FIRST,
        { ...SECOND, status: "failed" },
        stage({ number: 3, after: [2], status: "not-run" }),
      ],
      exchanges: [
        ...counts().exchanges,
        exchange({ edge: 3, source: SUM, target: SINK, handoff: "shuffle", producerStage: 2 }),
      ].map((item) => (item.edge === 3 ? { ...item, partitioner: "REBALANCE" } : item)),
    });
    expect(executionSentence(partly)).toContain(
      "1 exchange was materialised between stages (HASH into Sum); 1 exchange was not " +
        "materialised, as the stage writing it did not finish (REBALANCE into Sink: Sums), " +
        "and 2 chained edges stayed in one task.",
    );
  });

  it("names the local executor and its exchanges held in memory", () => {
    const local = counts({
      executor: "local",
      exchanges: counts().exchanges.map((item) =>
        item.handoff === "shuffle" ? { ...item, handoff: "in-memory" } : item,
      ),
    });
    expect(executionSentence(local)).toContain(
      "The local reference executor runs this STREAMING pipeline as a bounded batch job",
    );
    expect(executionSentence(local)).toContain(
      "1 exchange is held whole in memory for its consumer (HASH into Sum)",
    );
  });

  it("says when nothing left its task, and lists at most three exchanges by name", () => {
    const chained = counts({ exchanges: [exchange({ edge: 0 })], sources: [SOURCE, PAIR] });
    expect(executionSentence(chained)).toContain(
      "its 2 sources read their whole input, 2 stages run one after the other, in the " +
        "order the plan implies; no exchange: 1 chained edge stays in one task.",
    );
    const many = counts({
      exchanges: [1, 2, 3, 4].map((edge) =>
        exchange({ edge, partitioner: "REBALANCE", handoff: "shuffle", consumerStage: 2 }),
      ),
    });
    expect(executionSentence(many)).toContain(
      "4 exchanges are materialised between stages (REBALANCE into Pair, REBALANCE into " +
        "Pair, REBALANCE into Pair and 1 more).",
    );
  });

  it("explains a missing execution by whether the run still goes on", () => {
    expect(noExecutionText("QUEUED")).toContain("once a worker has planned it");
    expect(noExecutionText("FAILED")).toBe("How this run executed was not recorded.");
  });

  it("labels where the stage order comes from", () => {
    expect(stageOrderNote(counts(), "RUNNING")).toBe(
      "In the order the plan implies: Spark reports the stages when the run ends.",
    );
    // A run its worker ended without the executor: the plan's order, said to be so.
    expect(stageOrderNote(counts(), "FAILED")).toBe(
      "In the order the plan implies: Spark did not report this run's stages.",
    );
    expect(stageOrderNote(counts({ stagesReported: true }), "FINISHED")).toBe(
      "In the order they began, as Spark's listener reported them.",
    );
  });
});

describe("the execution tables", () => {
  it("puts Flink's planned exchange beside what Spark did with each edge", () => {
    expect(exchangeRows(counts())).toEqual([
      {
        edge: 0,
        label: "Source: Numbers → Pair",
        flink: "FORWARD · chained, no exchange",
        executed: "same task",
        stages: "stage 1",
        handoff: "in-task",
      },
      {
        edge: 1,
        label: "Pair → Sum",
        flink: "HASH · PIPELINED_BOUNDED",
        executed: "shuffle, materialised",
        stages: "stage 1 → 2",
        handoff: "shuffle",
      },
      {
        edge: 2,
        label: "Sum → Sink: Sums",
        flink: "FORWARD · chained, no exchange",
        executed: "same task",
        stages: "stage 2",
        handoff: "in-task",
      },
    ]);
  });

  it("shows the stage that moves an edge again on that edge's way", () => {
    const execution = counts({
      stages: [
        stage({ number: 1, vertices: [MAP_VERTEX] }),
        stage({ number: 2, edge: 1, after: [1] }),
        stage({ number: 3, vertices: [SINK_VERTEX], after: [2] }),
      ],
      exchanges: [
        exchange({
          edge: 1,
          source: PAIR,
          target: SUM,
          partitioner: "REBALANCE",
          resultPartitionType: "BLOCKING",
          handoff: "shuffle-twice",
          consumerStage: 3,
        }),
      ],
    });
    expect(exchangeRows(execution)[0]).toMatchObject({
      executed: "shuffle, materialised twice",
      stages: "stage 1 → 2 → 3",
    });
    const names = new Map([[MAP_VERTEX, "Pair"]]);
    expect(stageRows(execution, names).map((row) => [row.number, row.runs, row.reads])).toEqual([
      [1, "Pair", "–"],
      [2, "moves Pair → Sum again", "1"],
      [3, SINK_VERTEX, "2"],
    ]);
  });

  it("says which stages read and wrote the files of another storage", () => {
    const LINES = { node: 1, name: "Source: Lines" };
    const OUT = { node: 4, name: "Sink: Out" };
    const execution = counts({
      stages: [
        stage({ number: 1, reads: [LINES] }),
        stage({ number: 2, vertices: [MAP_VERTEX], after: [1] }),
        stage({ number: 3, vertices: [SINK_VERTEX], writes: [OUT], after: [2] }),
      ],
    });
    const names = new Map([
      [MAP_VERTEX, "Source: Lines -> Pair"],
      [SINK_VERTEX, "Sum -> Sink: Out"],
    ]);
    expect(stageRows(execution, names).map((row) => row.runs)).toEqual([
      "reads the files of Source: Lines",
      "Source: Lines -> Pair",
      "Sum -> Sink: Out; writes the files of Sink: Out",
    ]);
  });

  it("gives each stage its status, start and duration", () => {
    const rows = stageRows(
      counts({ stagesReported: true, stages: ran }),
      new Map([
        [MAP_VERTEX, "Source: Numbers -> Pair"],
        [SINK_VERTEX, "Sum -> Sink: Sums"],
      ]),
    );
    expect(rows).toEqual([
      {
        number: 1,
        runs: "Source: Numbers -> Pair",
        reads: "–",
        status: "finished",
        statusText: "finished",
        stageId: 4,
        start: 10,
        duration: 1,
      },
      {
        number: 2,
        runs: "Sum -> Sink: Sums",
        reads: "1",
        status: "finished",
        statusText: "finished",
        stageId: 5,
        start: 12,
        duration: 1,
      },
    ]);
    const unfinished = stageRows(
      counts({ stages: [stage({ number: 1, status: "unfinished", submitted: 3 })] }),
      new Map(),
    );
    expect(unfinished[0]).toMatchObject({ statusText: "did not finish", duration: null });
  });
});

describe("engines", () => {
  const names = new Map([
    [MAP_VERTEX, "Source -> Pair"],
    [SINK_VERTEX, "Sum -> Sink"],
  ]);

  it("names each vertex with what ran it and why not SQL", () => {
    const execution = counts({
      engines: [
        { vertex: MAP_VERTEX, engine: "sql", reason: null },
        { vertex: SINK_VERTEX, engine: "python", reason: "its output is not one HASH edge" },
      ],
    });
    expect(engineRows(execution, names)).toEqual([
      { vertex: MAP_VERTEX, name: "Source -> Pair", engine: "sql", ranAs: "Spark SQL", reason: "" },
      {
        vertex: SINK_VERTEX,
        name: "Sum -> Sink",
        engine: "python",
        ranAs: "Python chain",
        reason: "its output is not one HASH edge",
      },
    ]);
    expect(engineSentence(execution)).toBe(
      "1 of 2 vertices ran as Spark SQL, the others their Python chains.",
    );
  });

  it("says when every vertex ran one way, and shows nothing before the executor reported", () => {
    const sql = { engine: "sql" as const, reason: null };
    expect(
      engineSentence(
        counts({
          engines: [
            { vertex: MAP_VERTEX, ...sql },
            { vertex: SINK_VERTEX, ...sql },
          ],
        }),
      ),
    ).toBe("Every vertex ran as Spark SQL.");
    expect(
      engineSentence(counts({ engines: [{ vertex: MAP_VERTEX, engine: "python", reason: "x" }] })),
    ).toBe("Every vertex ran its Python chain.");
    expect(engineRows(counts(), names)).toEqual([]);
  });
});
