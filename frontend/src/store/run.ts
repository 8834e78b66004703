/**
 * One watched run: what the run monitor websocket has said about it, folded
 * by pure functions (data in, data out) that a zustand store holds.
 *
 * The socket sends a snapshot with the journal sequence number it reflects,
 * then one update per entry, each with the next number. An update is applied
 * only if it is the next one: an older one is already in the state, and a
 * newer one means an entry was missed, so the state asks for a fresh snapshot
 * (`resync`) and ignores updates until it comes. A dropped connection keeps
 * what is shown; the server answers every join with a snapshot.
 *
 * Subtasks are kept per vertex, and every vertex, subtask list and subtask
 * that an update leaves alone keeps its identity, so a component reading one
 * of them re-renders only when it changed.
 */

import { createStore, type StoreApi } from "zustand/vanilla";

import type { RunServerMessage, RunSnapshotMessage, RunUpdateMessage } from "../api/runMessages";
import type { RunDetail, RunInfo, RunVertex, Subtask } from "../api/runs";

export type RunConnection =
  | "connecting"
  | "open"
  | "reconnecting"
  /** The server refused the socket (4401 not signed in, 4404 no such run for you). */
  | "refused";

export interface RunWatchState {
  /** Null until the first snapshot (or REST answer). */
  readonly info: RunInfo | null;
  /** In plan order. */
  readonly vertices: readonly RunVertex[];
  /** Per JobVertexID, by subtask index. */
  readonly subtasks: ReadonlyMap<string, readonly Subtask[]>;
  /** The last journal entry applied; -1 before any. */
  readonly seq: number;
  /** True after a gap: updates are ignored until a snapshot arrives. */
  readonly awaitingSnapshot: boolean;
  readonly connection: RunConnection;
  /** Why the connection is down or refused, in words. */
  readonly detail: string | null;
  /** The last message-level error from the server, or a message this client could not read. */
  readonly problem: string | null;
}

export const INITIAL_RUN_STATE: RunWatchState = {
  info: null,
  vertices: [],
  subtasks: new Map(),
  seq: -1,
  awaitingSnapshot: false,
  connection: "connecting",
  detail: null,
  problem: null,
};

function groupSubtasks(subtasks: readonly Subtask[]): Map<string, Subtask[]> {
  const grouped = new Map<string, Subtask[]>();
  for (const subtask of subtasks) {
    let group = grouped.get(subtask.vertex);
    if (group === undefined) {
      group = [];
      grouped.set(subtask.vertex, group);
    }
    group.push(subtask);
  }
  for (const group of grouped.values()) {
    group.sort((a, b) => a.subtask - b.subtask);
  }
  return grouped;
}

function infoOf(run: RunDetail): RunInfo {
  const info: { -readonly [K in keyof RunDetail]?: RunDetail[K] } = { ...run };
  delete info.vertices;
  delete info.subtasks;
  delete info.seq;
  return info as RunInfo;
}

/** The whole state of a run as of `run.seq` (a snapshot, or a REST answer). */
export function withRun(state: RunWatchState, run: RunDetail): RunWatchState {
  return {
    ...state,
    info: infoOf(run),
    vertices: run.vertices,
    subtasks: groupSubtasks(run.subtasks),
    seq: run.seq,
    awaitingSnapshot: false,
  };
}

/**
 * A REST answer (`GET /api/runs/<id>/`, the started run): taken only when it is
 * newer than what the socket has given, so it never moves the state back.
 */
export function receiveDetail(state: RunWatchState, run: RunDetail): RunWatchState {
  return run.seq > state.seq ? withRun(state, run) : state;
}

export function receiveSnapshot(state: RunWatchState, message: RunSnapshotMessage): RunWatchState {
  return {
    ...withRun(state, { ...message.run, seq: message.seq }),
    connection: "open",
    detail: null,
  };
}

function replaceVertices(
  vertices: readonly RunVertex[],
  changed: readonly RunVertex[],
): readonly RunVertex[] {
  if (changed.length === 0) {
    return vertices;
  }
  const byId = new Map(changed.map((vertex) => [vertex.id, vertex]));
  const next = vertices.map((vertex) => byId.get(vertex.id) ?? vertex);
  const known = new Set(vertices.map((vertex) => vertex.id));
  return [...next, ...changed.filter((vertex) => !known.has(vertex.id))];
}

function replaceSubtasks(
  subtasks: ReadonlyMap<string, readonly Subtask[]>,
  changed: readonly Subtask[],
): ReadonlyMap<string, readonly Subtask[]> {
  if (changed.length === 0) {
    return subtasks;
  }
  const next = new Map(subtasks);
  const copied = new Set<string>();
  for (const subtask of changed) {
    const current = next.get(subtask.vertex) ?? [];
    const group = copied.has(subtask.vertex) ? (current as Subtask[]) : [...current];
    copied.add(subtask.vertex);
    // Subtasks are listed by index, so the index is the place, unless the list has holes.
    const at =
      group[subtask.subtask]?.subtask === subtask.subtask
        ? subtask.subtask
        : group.findIndex((item) => item.subtask === subtask.subtask);
    if (at >= 0) {
      group[at] = subtask;
    } else {
      group.push(subtask);
      group.sort((a, b) => a.subtask - b.subtask);
    }
    next.set(subtask.vertex, group);
  }
  return next;
}

/** One journal entry applied to the state it follows. */
export function applyUpdate(state: RunWatchState, message: RunUpdateMessage): RunWatchState {
  if (state.info === null) {
    return state;
  }
  return {
    ...state,
    info: { ...state.info, ...message.run },
    vertices: replaceVertices(state.vertices, message.vertices),
    subtasks: replaceSubtasks(state.subtasks, message.subtasks),
    seq: message.seq,
  };
}

export interface Received {
  readonly state: RunWatchState;
  /** Ask the server for a fresh snapshot. */
  readonly resync: boolean;
}

/** An update as it arrives: applied if next, ignored if old, a resync if entries were missed. */
export function receiveUpdate(state: RunWatchState, message: RunUpdateMessage): Received {
  if (state.awaitingSnapshot || message.seq <= state.seq) {
    return { state, resync: false };
  }
  if (state.info === null || message.seq > state.seq + 1) {
    return { state: { ...state, awaitingSnapshot: true }, resync: true };
  }
  return { state: applyUpdate(state, message), resync: false };
}

/** Any message the socket delivered. */
export function receive(state: RunWatchState, message: RunServerMessage): Received {
  switch (message.type) {
    case "snapshot":
      return { state: receiveSnapshot(state, message), resync: false };
    case "run_update":
      return receiveUpdate(state, message);
    case "error":
      return { state: { ...state, problem: message.error.message }, resync: false };
  }
}

/** A message that could not be read: start over from a snapshot. */
export function receiveUnreadable(state: RunWatchState, error: string): Received {
  return {
    state: { ...state, problem: `Unreadable message (${error}).`, awaitingSnapshot: true },
    resync: !state.awaitingSnapshot,
  };
}

/** The connection dropped: keep what is shown; the next join brings a snapshot. */
export function connectionLost(state: RunWatchState, detail: string): RunWatchState {
  return { ...state, connection: "reconnecting", detail, awaitingSnapshot: true };
}

export function connectionRefused(state: RunWatchState, detail: string): RunWatchState {
  return { ...state, connection: "refused", detail };
}

export type RunStore = StoreApi<RunWatchState>;

export function createRunStore(initial: RunWatchState = INITIAL_RUN_STATE): RunStore {
  return createStore<RunWatchState>()(() => initial);
}

// Reading ---------------------------------------------------------------------------

const NO_SUBTASKS: readonly Subtask[] = [];

export function subtasksOf(state: RunWatchState, vertex: string): readonly Subtask[] {
  return state.subtasks.get(vertex) ?? NO_SUBTASKS;
}

export function vertexOf(state: RunWatchState, vertex: string): RunVertex | undefined {
  return state.vertices.find((item) => item.id === vertex);
}
