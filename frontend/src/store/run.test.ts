import { describe, expect, it } from "vitest";

import {
  MAP_VERTEX,
  SINK_VERTEX,
  runDetail,
  snapshot,
  stateCounts,
  subtask,
  update,
  vertex,
} from "../test-support/runs";
import {
  connectionLost,
  connectionRefused,
  INITIAL_RUN_STATE,
  receive,
  receiveDetail,
  receiveSnapshot,
  receiveUnreadable,
  receiveUpdate,
  subtasksOf,
  vertexOf,
  type RunWatchState,
} from "./run";

function opened(seq = 0): RunWatchState {
  return receiveSnapshot(INITIAL_RUN_STATE, snapshot(runDetail({ seq })));
}

describe("the watched run", () => {
  it("takes a snapshot whole, subtasks grouped per vertex in index order", () => {
    const run = runDetail({
      seq: 5,
      status: "RUNNING",
      vertices: [vertex(), vertex({ id: SINK_VERTEX, name: "Sink", parallelism: 1 })],
      subtasks: [
        subtask({ subtask: 1 }),
        subtask({ vertex: SINK_VERTEX, subtask: 0 }),
        subtask({ subtask: 0 }),
      ],
    });
    const state = receiveSnapshot(INITIAL_RUN_STATE, snapshot(run));
    expect(state.connection).toBe("open");
    expect(state.seq).toBe(5);
    expect(state.info?.status).toBe("RUNNING");
    expect(state.info).not.toHaveProperty("subtasks");
    expect(subtasksOf(state, MAP_VERTEX).map((s) => s.subtask)).toEqual([0, 1]);
    expect(subtasksOf(state, SINK_VERTEX)).toHaveLength(1);
    expect(subtasksOf(state, "missing")).toEqual([]);
  });

  it("applies the next update: run fields copied, vertices and subtasks replaced", () => {
    const before = opened(0);
    const running = subtask({ subtask: 1, state: "RUNNING", recordsIn: 7 });
    const changedVertex = vertex({
      status: "RUNNING",
      statusCounts: stateCounts({ CREATED: 1, RUNNING: 1 }),
    });
    const { state, resync } = receiveUpdate(
      before,
      update(1, {
        run: { status: "RUNNING", startedAt: "2026-11-23T18:13:29Z" },
        vertices: [changedVertex],
        subtasks: [running],
      }),
    );
    expect(resync).toBe(false);
    expect(state.seq).toBe(1);
    expect(state.info?.status).toBe("RUNNING");
    expect(state.info?.startedAt).toBe("2026-11-23T18:13:29Z");
    expect(state.info?.cluster).toBe("default");
    expect(vertexOf(state, MAP_VERTEX)).toBe(changedVertex);
    const subtasks = subtasksOf(state, MAP_VERTEX);
    expect(subtasks[1]).toBe(running);
    // What did not change keeps its identity.
    expect(subtasks[0]).toBe(subtasksOf(before, MAP_VERTEX)[0]);
  });

  it("keeps a vertex's subtask list when none of its subtasks changed", () => {
    const run = runDetail({
      vertices: [vertex(), vertex({ id: SINK_VERTEX })],
      subtasks: [subtask(), subtask({ vertex: SINK_VERTEX })],
    });
    const before = receiveSnapshot(INITIAL_RUN_STATE, snapshot(run));
    const { state } = receiveUpdate(
      before,
      update(1, { subtasks: [subtask({ state: "SCHEDULED" })] }),
    );
    expect(subtasksOf(state, SINK_VERTEX)).toBe(subtasksOf(before, SINK_VERTEX));
    expect(subtasksOf(state, MAP_VERTEX)).not.toBe(subtasksOf(before, MAP_VERTEX));
    expect(state.vertices).toBe(before.vertices);
  });

  it("clears a field an update sets to null", () => {
    const before = receiveSnapshot(
      INITIAL_RUN_STATE,
      snapshot(runDetail({ error: "old", seq: 0 })),
    );
    expect(receiveUpdate(before, update(1, { run: { error: null } })).state.info?.error).toBe(null);
  });

  it("ignores an update it already has", () => {
    const state = opened(4);
    const received = receiveUpdate(state, update(4, { run: { status: "FAILED" } }));
    expect(received.resync).toBe(false);
    expect(received.state).toBe(state);
    expect(receiveUpdate(state, update(2)).state).toBe(state);
  });

  it("asks for a snapshot after a gap, once, and ignores updates until it comes", () => {
    const state = opened(1);
    const gap = receiveUpdate(state, update(3, { run: { status: "RUNNING" } }));
    expect(gap.resync).toBe(true);
    expect(gap.state.seq).toBe(1);
    expect(gap.state.info?.status).toBe("QUEUED");
    expect(gap.state.awaitingSnapshot).toBe(true);

    const next = receiveUpdate(gap.state, update(2));
    expect(next.resync).toBe(false);
    expect(next.state.seq).toBe(1);

    const fresh = receive(next.state, snapshot(runDetail({ seq: 3, status: "RUNNING" }))).state;
    expect(fresh.awaitingSnapshot).toBe(false);
    expect(fresh.seq).toBe(3);
    expect(receiveUpdate(fresh, update(4)).state.seq).toBe(4);
  });

  it("asks for a snapshot when an update comes before any", () => {
    const received = receiveUpdate(INITIAL_RUN_STATE, update(0));
    expect(received.resync).toBe(true);
  });

  it("keeps what it shows while reconnecting and takes the snapshot of the new join", () => {
    const state = receiveUpdate(opened(0), update(1, { run: { status: "RUNNING" } })).state;
    const lost = connectionLost(state, "reconnecting");
    expect(lost.connection).toBe("reconnecting");
    expect(lost.info?.status).toBe("RUNNING");
    // Nothing from before the new snapshot is applied.
    expect(receiveUpdate(lost, update(2)).state.seq).toBe(1);
    const back = receiveSnapshot(lost, snapshot(runDetail({ seq: 6, status: "FINISHED" })));
    expect(back.connection).toBe("open");
    expect(back.detail).toBe(null);
    expect(back.info?.status).toBe("FINISHED");
    expect(back.seq).toBe(6);
  });

  it("says why the server refused the socket", () => {
    const refused = connectionRefused(INITIAL_RUN_STATE, "no such run");
    expect(refused).toMatchObject({ connection: "refused", detail: "no such run" });
  });

  it("takes a REST answer only when it is newer than the socket's state", () => {
    const state = opened(3);
    expect(receiveDetail(state, runDetail({ seq: 2, status: "FAILED" }))).toBe(state);
    const newer = receiveDetail(state, runDetail({ seq: 4, status: "FINISHED" }));
    expect(newer.info?.status).toBe("FINISHED");
    expect(receiveDetail(INITIAL_RUN_STATE, runDetail({ seq: 0 })).seq).toBe(0);
  });

  it("records a server error and asks again after an unreadable message", () => {
    const state = opened(0);
    const error = receive(state, {
      type: "error",
      error: { code: "invalid-message", message: "type: bad", diagnostics: [], fields: {} },
    });
    expect(error.state.problem).toBe("type: bad");
    const unreadable = receiveUnreadable(state, "not JSON");
    expect(unreadable.resync).toBe(true);
    expect(receiveUnreadable(unreadable.state, "not JSON").resync).toBe(false);
  });
});
