import { describe, expect, it } from "vitest";

import {
  encodeRunRequest,
  parseRunMessage,
  readRunDetail,
  type RunServerMessage,
} from "./runMessages";

// What `runs.events.encode` produces (the example run of docs/RUNTIME.md).
const VERTEX =
  '{"id":"0a448493b4782967b150582570326227","name":"Map","parallelism":2,"maxParallelism":128,' +
  '"status":"FINISHED","statusCounts":{"CREATED":0,"SCHEDULED":0,"DEPLOYING":0,"INITIALIZING":0,' +
  '"RUNNING":0,"FINISHED":2,"CANCELING":0,"CANCELED":0,"FAILED":0},"recordsIn":100,' +
  '"recordsOut":100,"startTime":1795457608.2533333,"endTime":1795457608.2547903}';
const SUBTASK =
  '{"attempt":1,"state":"FINISHED","recordsIn":50,"recordsOut":50,"startTime":1795457608.2533333,' +
  '"endTime":1795457608.253763,"error":null,"vertex":"0a448493b4782967b150582570326227",' +
  '"subtask":0,"name":"Map (1/2)","keyGroups":[0,63],"attempts":[{"attempt":0,"state":"FAILED",' +
  '"recordsIn":4,"recordsOut":3,"startTime":1795457608.252559,"endTime":1795457608.2528794,' +
  '"error":"Map (node 2): ZeroDivisionError: division by zero","failedNode":2},' +
  // Stored before the server recorded failedNode: read as null.
  '{"attempt":1,"state":"FINISHED","recordsIn":50,' +
  '"recordsOut":50,"startTime":1795457608.2533333,"endTime":1795457608.253763,"error":null}]}';
const SINK =
  '{"node":4,"vertex":"e70bbd798b564e0a50e10e343f1ac56b","subtask":0,"records":2,' +
  '"preview":["(0, 1683)","(1, 1717)"],"truncated":false,"files":[]}';
const RUN =
  '{"id":1,"pipeline":1,"version":2,"status":"FINISHED","cluster":"default",' +
  '"parameters":{},"startedBy":{"id":2,"username":"eddie"},' +
  '"createdAt":"2026-11-23T18:13:28.190965Z","startedAt":"2026-11-23T18:13:28.236297Z",' +
  '"finishedAt":"2026-11-23T18:13:28.289562Z","heartbeatAt":"2026-11-23T18:13:28.291399Z",' +
  `"worker":"vm:24965","error":null,"sinks":[${SINK}],` +
  '"details":{"applicationId":"local-1700000000000","executor":"spark"},' +
  `"seq":3,"vertices":[${VERTEX}],"subtasks":[${SUBTASK}]}`;

// How the run executed (`runtime.stages.ExecutionReport.to_json`): two stages, one shuffle.
const EXECUTION =
  '{"executor":"spark","runtimeMode":"STREAMING","sources":[{"node":1,"name":"Source: Numbers"}],' +
  '"stagesReported":true,"stages":[{"number":1,"vertices":["0a448493b4782967b150582570326227"],' +
  '"edge":null,"reads":[],"writes":[],"after":[],"status":"finished","stageId":4,"attempts":1,' +
  '"submitted":10.5,"completed":11.25},{"number":2,' +
  '"vertices":["e70bbd798b564e0a50e10e343f1ac56b"],"edge":null,"reads":[],' +
  '"writes":[{"node":4,"name":"Sink: Out"}],"after":[1],"status":"finished","stageId":5,' +
  '"attempts":1,"submitted":11.3,"completed":12.0}],' +
  '"exchanges":[{"edge":0,"source":{"node":1,"name":"Source: Numbers"},' +
  '"target":{"node":2,"name":"Map"},"partitioner":"FORWARD","resultPartitionType":null,' +
  '"handoff":"in-task","producerStage":1,"consumerStage":1},{"edge":1,' +
  '"source":{"node":2,"name":"Map"},"target":{"node":3,"name":"Sum"},"partitioner":"HASH",' +
  '"resultPartitionType":"PIPELINED_BOUNDED","handoff":"shuffle","producerStage":1,' +
  '"consumerStage":2}]}';

function parsed(text: string): RunServerMessage {
  const result = parseRunMessage(text);
  if (!result.ok) {
    throw new Error(result.error);
  }
  return result.message;
}

function refusal(text: string): string {
  const result = parseRunMessage(text);
  if (result.ok) {
    throw new Error(`accepted ${text}`);
  }
  return result.error;
}

describe("run monitor messages", () => {
  it("reads a snapshot with every vertex, subtask, attempt and sink", () => {
    const message = parsed(`{"type":"snapshot","seq":3,"run":${RUN}}`);
    expect(message.type).toBe("snapshot");
    if (message.type !== "snapshot") {
      return;
    }
    expect(message.seq).toBe(3);
    const { run } = message;
    expect(run.startedBy).toEqual({ id: 2, username: "eddie" });
    expect(run.vertices[0]?.statusCounts.FINISHED).toBe(2);
    expect(run.subtasks[0]?.keyGroups).toEqual([0, 63]);
    expect(run.subtasks[0]?.attempts.map((a) => a.state)).toEqual(["FAILED", "FINISHED"]);
    expect(run.subtasks[0]?.attempts[0]?.error).toBe(
      "Map (node 2): ZeroDivisionError: division by zero",
    );
    expect(run.subtasks[0]?.attempts.map((a) => a.failedNode)).toEqual([2, null]);
    expect(run.sinks[0]?.preview).toEqual(["(0, 1683)", "(1, 1717)"]);
    expect(run.details).toEqual({ applicationId: "local-1700000000000", executor: "spark" });
  });

  it("reads an update's changed run fields only, keeping a cleared field as null", () => {
    const message = parsed(
      '{"type":"run_update","seq":1,"run":{"status":"CREATED","startedAt":"2026-11-23T18:13:28Z",' +
        '"error":null},"vertices":[],"subtasks":[]}',
    );
    expect(message).toEqual({
      type: "run_update",
      seq: 1,
      run: { status: "CREATED", startedAt: "2026-11-23T18:13:28Z", error: null },
      vertices: [],
      subtasks: [],
    });
  });

  it("reads who canceled a run, in an update and in a detail", () => {
    const message = parsed(
      '{"type":"run_update","seq":5,"run":{"status":"CANCELING",' +
        '"canceledBy":{"id":2,"username":"eddie"}},"vertices":[],"subtasks":[]}',
    );
    expect(message.type === "run_update" && message.run).toEqual({
      status: "CANCELING",
      canceledBy: { id: 2, username: "eddie" },
    });
    const canceled = {
      ...(JSON.parse(RUN) as Record<string, unknown>),
      status: "CANCELED",
      canceledBy: { id: 3, username: "ada" },
    };
    expect(readRunDetail(canceled).canceledBy).toEqual({ id: 3, username: "ada" });
    // A server that does not send it yet: nobody known.
    expect(readRunDetail(JSON.parse(RUN)).canceledBy).toBeNull();
    expect(() => readRunDetail({ ...canceled, canceledBy: "ada" })).toThrow("run.canceledBy");
  });

  it("reads how the run executed, in a detail and in an update", () => {
    const run = readRunDetail({
      ...(JSON.parse(RUN) as Record<string, unknown>),
      execution: JSON.parse(EXECUTION) as unknown,
    });
    expect(run.execution?.stages.map((stage) => [stage.number, stage.after])).toEqual([
      [1, []],
      [2, [1]],
    ]);
    expect(run.execution?.stages[1]?.writes).toEqual([{ node: 4, name: "Sink: Out" }]);
    expect(run.execution?.exchanges[1]).toMatchObject({
      partitioner: "HASH",
      resultPartitionType: "PIPELINED_BOUNDED",
      handoff: "shuffle",
    });
    // Before a worker planned it, or from a server that does not send it.
    expect(readRunDetail(JSON.parse(RUN)).execution).toBeNull();
    const message = parsed(
      `{"type":"run_update","seq":2,"run":{"execution":${EXECUTION}},"vertices":[],"subtasks":[]}`,
    );
    expect(message.type === "run_update" && message.run.execution?.stagesReported).toBe(true);
    expect(
      refusal(
        `{"type":"run_update","seq":2,"run":{"execution":${EXECUTION.replace('"in-task"', '"piped"')}}}`,
      ),
    ).toContain("run.execution.exchanges.0.handoff");
  });

  it("reads the Spark application with its links, in an update and in a detail", () => {
    const spark = {
      id: "app-20260101-0007",
      uiUrl: "http://spark-master:8080/app/?appId=app-20260101-0007",
      historyUrl: null,
    };
    const message = parsed(
      `{"type":"run_update","seq":2,"run":{"spark":${JSON.stringify(spark)}},"vertices":[]}`,
    );
    expect(message.type === "run_update" && message.run).toEqual({ spark });
    const detail = { ...(JSON.parse(RUN) as Record<string, unknown>), spark };
    expect(readRunDetail(detail).spark).toEqual(spark);
    // A server that does not send it yet: not known.
    expect(readRunDetail(JSON.parse(RUN)).spark).toBeNull();
    expect(() => readRunDetail({ ...detail, spark: { ...spark, uiUrl: 3 } })).toThrow(
      "run.spark.uiUrl",
    );
  });

  it("reads why live states are not arriving, and its clearing, in updates and details", () => {
    const problem = "Spark launched this run's tasks 9 s ago, but no executor has reported";
    const said = parsed(
      `{"type":"run_update","seq":2,"run":{"eventsProblem":${JSON.stringify(problem)}},"vertices":[]}`,
    );
    expect(said.type === "run_update" && said.run).toEqual({ eventsProblem: problem });
    const cleared = parsed('{"type":"run_update","seq":3,"run":{"eventsProblem":null}}');
    expect(cleared.type === "run_update" && cleared.run).toEqual({ eventsProblem: null });
    const detail = { ...(JSON.parse(RUN) as Record<string, unknown>), eventsProblem: problem };
    expect(readRunDetail(detail).eventsProblem).toBe(problem);
    // A server that does not send it yet: nothing noticed.
    expect(readRunDetail(JSON.parse(RUN)).eventsProblem).toBeNull();
    expect(() => readRunDetail({ ...detail, eventsProblem: 3 })).toThrow("run.eventsProblem");
  });

  it("reads whole changed vertices and subtasks in an update", () => {
    const message = parsed(
      `{"type":"run_update","seq":4,"run":{},"vertices":[${VERTEX}],"subtasks":[${SUBTASK}]}`,
    );
    expect(message.type === "run_update" && message.subtasks[0]?.attempt).toBe(1);
    expect(message.type === "run_update" && message.vertices[0]?.recordsIn).toBe(100);
  });

  it("fills missing state counts with zero", () => {
    const vertex = VERTEX.replace(/"statusCounts":\{[^}]*\}/, '"statusCounts":{"RUNNING":2}');
    const message = parsed(`{"type":"run_update","seq":2,"run":{},"vertices":[${vertex}]}`);
    expect(message.type === "run_update" && message.vertices[0]?.statusCounts).toMatchObject({
      CREATED: 0,
      RUNNING: 2,
      FAILED: 0,
    });
  });

  it("reads the error message with its diagnostics", () => {
    const message = parsed(
      '{"type":"error","error":{"code":"invalid-message","message":"type: bad",' +
        '"diagnostics":[{"code":"x","message":"m","node":3,"stage":"run"}],"fields":{"type":"bad"}}}',
    );
    expect(message.type === "error" && message.error.diagnostics[0]).toEqual({
      code: "x",
      severity: "error",
      message: "m",
      node: 3,
      edge: null,
      field: null,
      stage: "run",
    });
  });

  it.each([
    ["not JSON", "{", "not JSON"],
    ["an unknown type", '{"type":"nope"}', 'unknown message type "nope"'],
    ["an unknown state", SUBTASK.replace('"state":"FINISHED"', '"state":"DONE"'), "state"],
    ["a negative count", SUBTASK.replace('"recordsIn":50', '"recordsIn":-1'), "recordsIn"],
    ["a time as text", SUBTASK.replace('"endTime":1795457608.253763', '"endTime":"x"'), "endTime"],
    ["a bad key-group range", SUBTASK.replace("[0,63]", "[0]"), "keyGroups"],
  ])("refuses %s", (_what, subtask, where) => {
    const text = subtask.startsWith('{"attempt"')
      ? `{"type":"run_update","seq":1,"run":{},"vertices":[],"subtasks":[${subtask}]}`
      : subtask;
    expect(refusal(text)).toContain(where);
  });

  it("refuses an unknown run status", () => {
    expect(refusal('{"type":"run_update","seq":1,"run":{"status":"DONE"}}')).toContain(
      "run.status",
    );
  });

  it("checks a REST run detail the same way", () => {
    expect(readRunDetail(JSON.parse(RUN)).id).toBe(1);
    expect(() => readRunDetail({ ...JSON.parse(RUN), seq: "3" })).toThrow("run.seq");
  });

  it("encodes the resync request", () => {
    expect(encodeRunRequest({ type: "resync" })).toBe('{"type":"resync"}');
  });
});
