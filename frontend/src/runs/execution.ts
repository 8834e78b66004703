/**
 * How the run executed, in words, beside what Flink plans for the pipeline: the
 * Execution section's sentence, its edge-by-edge table and its stages. Spark runs
 * every pipeline as a bounded batch job (its sources read their whole input, its
 * stages run in order, each JobEdge a shuffle materialised between stages), so
 * the planned mode and exchanges are shown as what Flink plans, never as what
 * happened. Before the executor reports its stages they are the plan's, and say so.
 */

import {
  isActive,
  type RunExchange,
  type RunExecution,
  type RunStage,
  type RunStatus,
} from "../api/runs";
import { plural } from "./format";

type Executor = RunExecution["executor"];

const WHO: Readonly<Record<Executor, string>> = {
  spark: "Spark",
  local: "The local reference executor",
};

/** The table's column of what the executor did, by executor. */
export const EXECUTED_BY: Readonly<Record<Executor, string>> = {
  spark: "Spark",
  local: "Local executor",
};

/** Names at most this many exchanges in the sentence, then "and N more". */
const NAMED = 3;

function shipped(execution: RunExecution): readonly RunExchange[] {
  return execution.exchanges.filter((exchange) => exchange.handoff !== "in-task");
}

/** The stage that moves an exchange's records again, if one does. */
function movingStage(execution: RunExecution, exchange: RunExchange): RunStage | undefined {
  return execution.stages.find((stage) => stage.edge === exchange.edge);
}

/**
 * The reported stage that did not finish writing an exchange (its producer's, or the
 * one moving it again); undefined while the stages are the plan's, or when all did.
 */
function unwrittenBy(execution: RunExecution, exchange: RunExchange): RunStage | undefined {
  if (!execution.stagesReported) {
    return undefined;
  }
  const writers = [
    execution.stages.find((stage) => stage.number === exchange.producerStage),
    movingStage(execution, exchange),
  ];
  return writers.find((stage) => stage !== undefined && stage.status !== "finished");
}

/** "HASH into Sum", how the sentence names an exchange. */
export function exchangeName(exchange: RunExchange): string {
  return `${exchange.partitioner} into ${exchange.target.name}`;
}

function listed(names: readonly string[]): string {
  const shown = names.slice(0, NAMED).join(", ");
  return names.length > NAMED ? `${shown} and ${names.length - NAMED} more` : shown;
}

/** True when every stage began only after the one before it had completed. */
function oneAfterAnother(stages: readonly RunStage[]): boolean {
  return stages.every((stage, index) => {
    const before = stages[index - 1];
    if (before === undefined) {
      return true;
    }
    return (
      stage.submitted !== null && before.completed !== null && stage.submitted >= before.completed
    );
  });
}

/** True when each planned stage reads only the one before it. */
function planIsALine(stages: readonly RunStage[]): boolean {
  return stages.every((stage, index) =>
    index === 0 ? stage.after.length === 0 : stage.after.join() === String(stage.number - 1),
  );
}

function stagesPart(execution: RunExecution): string {
  const { stages } = execution;
  if (!execution.stagesReported) {
    const order =
      stages.length === 1
        ? "1 stage runs"
        : planIsALine(stages)
          ? `${plural(stages.length, "stage")} run one after the other`
          : `${plural(stages.length, "stage")} run, each once the stages it reads have finished`;
    return `${order}, in the order the plan implies`;
  }
  const began = stages.filter((stage) => stage.status !== "not-run");
  if (began.length < stages.length) {
    return `${began.length} of ${plural(stages.length, "stage")} began before the run ended`;
  }
  if (stages.length === 1) {
    return "1 stage ran";
  }
  return oneAfterAnother(stages)
    ? `${plural(stages.length, "stage")} ran one after the other`
    : `${plural(stages.length, "stage")} ran, each once the stages it reads had finished`;
}

function exchangesPart(execution: RunExecution): string {
  const past = execution.stagesReported;
  const moved = shipped(execution);
  const chained = execution.exchanges.length - moved.length;
  const stay = past ? "stayed" : chained === 1 ? "stays" : "stay";
  const stayed = chained === 0 ? "" : `${plural(chained, "chained edge")} ${stay} in one task`;
  if (moved.length === 0) {
    return stayed === "" ? "it has no edge" : `no exchange: ${stayed}`;
  }
  const written = moved.filter((exchange) => unwrittenBy(execution, exchange) === undefined);
  const unwritten = moved.filter((exchange) => unwrittenBy(execution, exchange) !== undefined);
  const parts: string[] = [];
  if (written.length > 0) {
    const verb = written.length === 1 ? (past ? "was" : "is") : past ? "were" : "are";
    const consumers = written.length === 1 ? "its consumer" : "their consumers";
    const how =
      execution.executor === "local"
        ? `held whole in memory for ${consumers}`
        : "materialised between stages";
    const names = listed(written.map(exchangeName));
    parts.push(`${plural(written.length, "exchange")} ${verb} ${how} (${names})`);
  }
  if (unwritten.length > 0) {
    const one = unwritten.length === 1;
    const names = listed(unwritten.map(exchangeName));
    parts.push(
      `${plural(unwritten.length, "exchange")} ${one ? "was" : "were"} not materialised, as ` +
        `the stage writing ${one ? "it" : "them"} did not finish (${names})`,
    );
  }
  if (stayed !== "") {
    parts.push(stayed);
  }
  return parts.length === 1
    ? parts.join("")
    : `${parts.slice(0, -1).join("; ")}, and ${parts.at(-1) ?? ""}`;
}

/** What Flink plans for the exchanges the executor materialised, or null if none. */
function flinkPart(execution: RunExecution): string | null {
  const types = [
    ...new Set(shipped(execution).flatMap((exchange) => exchange.resultPartitionType ?? [])),
  ];
  if (types.length === 0) {
    return null;
  }
  const them = shipped(execution).length === 1 ? "it" : "them";
  if (types.includes("PIPELINED_BOUNDED")) {
    return (
      `Flink plans ${types.join(" and ")} for ${them}: records stream through as they are ` +
      `produced, producer and consumer running at the same time.`
    );
  }
  if (types.every((type) => type === "BLOCKING")) {
    return `Flink plans BLOCKING for ${them}: materialised whole before the consumer starts.`;
  }
  return `Flink plans ${types.join(" and ")} for ${them}: readable while still being written.`;
}

/**
 * The Execution section's sentence: "Spark ran this STREAMING pipeline as a bounded
 * batch job: its source read its whole input, 2 stages ran one after the other;
 * 1 exchange was materialised between stages (HASH into Sum), ...", then what Flink
 * plans for those exchanges.
 */
export function executionSentence(execution: RunExecution): string {
  const past = execution.stagesReported;
  const count = execution.sources.length;
  const sources =
    count === 1
      ? `its source ${past ? "read" : "reads"} its whole input`
      : `its ${count} sources read their whole input`;
  const opening = `${WHO[execution.executor]} ${past ? "ran" : "runs"} this ${execution.runtimeMode} pipeline as a bounded batch job`;
  const first = `${opening}: ${sources}, ${stagesPart(execution)}; ${exchangesPart(execution)}.`;
  const flink = flinkPart(execution);
  return flink === null ? first : `${first} ${flink}`;
}

/** What the section says when the run has no execution to show. */
export function noExecutionText(status: RunStatus): string {
  return isActive(status)
    ? "How the run executes is told once a worker has planned it."
    : "How this run executed was not recorded.";
}

/** Where the stage order comes from, above the stages. */
export function stageOrderNote(execution: RunExecution, status: RunStatus): string {
  const who = execution.executor === "spark" ? "Spark" : "the executor";
  if (execution.stagesReported) {
    return `In the order they began, as ${execution.executor === "spark" ? "Spark's listener" : "the executor"} reported them.`;
  }
  return isActive(status)
    ? `In the order the plan implies: ${who} reports the stages when the run ends.`
    : `In the order the plan implies: ${who} did not report this run's stages.`;
}

export interface ExchangeRow {
  readonly edge: number;
  /** "Pair → Sum". */
  readonly label: string;
  /** "HASH · PIPELINED_BOUNDED", or "FORWARD · chained, no exchange". */
  readonly flink: string;
  /** "shuffle, materialised", "same task", ... */
  readonly executed: string;
  /** "stage 1 → 2", "stage 2". */
  readonly stages: string;
  readonly handoff: RunExchange["handoff"];
}

const HANDOFF_TEXT: Readonly<Record<RunExchange["handoff"], string>> = {
  "in-task": "same task",
  shuffle: "shuffle, materialised",
  "shuffle-twice": "shuffle, materialised twice",
  "in-memory": "held in memory whole",
};

/** How the executor moves an exchange, before anything says whether it was written. */
const UNWRITTEN_TEXT: Readonly<Record<RunExchange["handoff"], string>> = {
  "in-task": "same task",
  shuffle: "shuffle",
  "shuffle-twice": "shuffle, twice",
  "in-memory": "in memory",
};

/** Every StreamEdge: Flink's planned exchange beside how the executor moved its records. */
export function exchangeRows(execution: RunExecution): ExchangeRow[] {
  return execution.exchanges.map((exchange) => {
    const again = movingStage(execution, exchange);
    const unwritten = exchange.handoff === "in-task" ? undefined : unwrittenBy(execution, exchange);
    const path = [
      exchange.producerStage,
      ...(again === undefined ? [] : [again.number]),
      exchange.consumerStage,
    ];
    return {
      edge: exchange.edge,
      label: `${exchange.source.name} → ${exchange.target.name}`,
      flink: `${exchange.partitioner} · ${exchange.resultPartitionType ?? "chained, no exchange"}`,
      executed:
        unwritten === undefined
          ? HANDOFF_TEXT[exchange.handoff]
          : `${UNWRITTEN_TEXT[exchange.handoff]}, not materialised: stage ${unwritten.number} ${STATUS_TEXT[unwritten.status]}`,
      stages:
        exchange.producerStage === exchange.consumerStage
          ? `stage ${exchange.producerStage}`
          : `stage ${path.join(" → ")}`,
      handoff: exchange.handoff,
    };
  });
}

export interface StageRow {
  readonly number: number;
  /** The vertices it ran, by name, and the files it read or wrote; or the edge it moves again. */
  readonly runs: string;
  /** "1, 2": the stages it reads; "–" for none. */
  readonly reads: string;
  readonly status: RunStage["status"];
  readonly statusText: string;
  readonly stageId: number | null;
  readonly start: number | null;
  readonly duration: number | null;
}

/** "reads the files of Source: Lines", for a stage that moved a storage's files. */
function filesOf(verb: "reads" | "writes", operators: RunStage["reads"]): string {
  return operators.length === 0
    ? ""
    : `${verb} the files of ${operators.map((operator) => operator.name).join(", ")}`;
}

const STATUS_TEXT: Readonly<Record<RunStage["status"], string>> = {
  planned: "planned",
  finished: "finished",
  failed: "failed",
  unfinished: "did not finish",
  "not-run": "not run",
};

/** The stages in their order, each with what it ran, by vertex name. */
export function stageRows(
  execution: RunExecution,
  vertexNames: ReadonlyMap<string, string>,
): StageRow[] {
  return execution.stages.map((stage) => {
    const moved = execution.exchanges.find((exchange) => exchange.edge === stage.edge);
    const parts = [
      stage.vertices.map((vertex) => vertexNames.get(vertex) ?? vertex).join(", "),
      filesOf("reads", stage.reads),
      filesOf("writes", stage.writes),
    ].filter((part) => part !== "");
    const runs =
      parts.length > 0
        ? parts.join("; ")
        : moved === undefined
          ? "(no vertex)"
          : `moves ${moved.source.name} → ${moved.target.name} again`;
    return {
      number: stage.number,
      runs,
      reads: stage.after.length === 0 ? "–" : stage.after.join(", "),
      status: stage.status,
      statusText: STATUS_TEXT[stage.status],
      stageId: stage.stageId,
      start: stage.submitted,
      duration:
        stage.submitted === null || stage.completed === null
          ? null
          : Math.max(0, stage.completed - stage.submitted),
    };
  });
}

/** One vertex and what ran it: Spark SQL in the JVM, or its Python chain. */
export interface EngineRow {
  readonly vertex: string;
  readonly name: string;
  readonly engine: "sql" | "python";
  readonly ranAs: string;
  /** Why not SQL, for a vertex that ran in Python on Spark. */
  readonly reason: string;
}

const RAN_AS: Readonly<Record<EngineRow["engine"], string>> = {
  sql: "Spark SQL",
  python: "Python chain",
};

/** The vertices in plan order with what ran them; empty until the executor reported. */
export function engineRows(
  execution: RunExecution,
  names: ReadonlyMap<string, string>,
): EngineRow[] {
  return execution.engines.map((entry) => ({
    vertex: entry.vertex,
    name: names.get(entry.vertex) ?? entry.vertex,
    engine: entry.engine,
    ranAs: RAN_AS[entry.engine],
    reason: entry.reason ?? "",
  }));
}

/** "2 of 3 vertices ran as Spark SQL, the others their Python chains." */
export function engineSentence(execution: RunExecution): string {
  const total = execution.engines.length;
  const sql = execution.engines.filter((entry) => entry.engine === "sql").length;
  if (sql === 0) {
    return `Every vertex ran its Python chain.`;
  }
  if (sql === total) {
    return `Every vertex ran as Spark SQL.`;
  }
  return `${sql} of ${plural(total, "vertex", "vertices")} ran as Spark SQL, the others their Python chains.`;
}
