import type { EdgeKey } from "../graph/edits";
import wireSchema from "./generated/wire.schema.json";
import { REVIEW_SERVER_MESSAGE_TYPES } from "./generated/wire";
import {
  ADA,
  comment,
  GRACE,
  OPERATOR,
  reviewRequest,
  thread,
  verdict,
} from "../test-support/reviews";
import { describe, expect, it } from "vitest";

import {
  editRequest,
  encodeClientMessage,
  parseServerMessage,
  presenceRequest,
  OP_ID_MAX_LENGTH,
  SELECTION_MAX_ITEMS,
  resyncRequest,
  type ReviewMessage,
  type ServerMessage,
} from "./messages";

// What `pipelines.events.encode` produces for each server message.
const DOCUMENT =
  '{"format":"streamgraph/v1","name":"m","config":{},"nodes":[{"id":1,"name":"Source: s","ui":{"x":40,"y":40}}],"edges":[]}';
const VERTEX = "bc764cd8ddf7a0cff126f51c16239658";
const PLAN =
  '{"format":"liveplan/v1","ok":true,"summary":{"jobType":"STREAMING","vertexCount":1,' +
  `"vertexOrder":["${VERTEX}"],"slotsRequired":1,"totalSubtasks":1,` +
  '"slotSharingGroups":[{"index":0,"name":"default","slots":1}]},"diagnostics":[],' +
  `"nodes":{"1":{"operatorId":"${VERTEX}","userDefinedId":null,"vertex":"${VERTEX}",` +
  '"hashBasis":"position 0 in the traversal, 0 chainable out-edge(s), no inputs; set a uid to make it stable"}},' +
  `"vertices":{"${VERTEX}":{"name":"Source: s","head":1,"nodes":[1],"chainedSources":[],"parallelism":1,` +
  '"maxParallelism":128,"slotSharingGroup":0,"slotSharingGroupName":"default","inputs":[]}},"edges":{}}';
const ENTRY =
  '{"clientId":"c1","user":{"id":1,"username":"ada"},"role":"editor","selection":{"nodes":[],"edges":[]},"cursor":null}';

const ENCODED: Record<ServerMessage["type"], string> = {
  snapshot: `{"type":"snapshot","pipeline":7,"revision":3,"document":${DOCUMENT},"plan":${PLAN},"presence":[${ENTRY}],"you":${ENTRY}}`,
  edit_applied:
    '{"type":"edit_applied","revision":4,"clientId":"c2","user":{"id":2,"username":"grace"},"opId":"op-1",' +
    '"edit":{"kind":"move_node","nodeId":1,"x":5,"y":6},"rebased":true,"planDelta":{}}',
  edit_rejected:
    '{"type":"edit_rejected","opId":"op-2","reason":"conflict","revision":4,"error":{"code":"edit.conflict",' +
    '"message":"conflict: node 1 was removed in revision 4; your edit was not applied","diagnostics":[],"fields":{}}}',
  document_replaced: `{"type":"document_replaced","revision":9,"document":${DOCUMENT},"plan":${PLAN}}`,
  version_saved:
    '{"type":"version_saved","number":3,"revision":7,"message":"Widen the total","user":{"id":2,"username":"grace"}}',
  run_started: '{"type":"run_started","run":12,"version":3,"user":{"id":2,"username":"grace"}}',
  access_changed: `{"type":"access_changed","you":${ENTRY.replace('"editor"', '"viewer"')},"canEdit":false}`,
  presence:
    '{"type":"presence","client":{"clientId":"c1","user":{"id":1,"username":"ada"},"role":"editor",' +
    '"selection":{"nodes":[1],"edges":[[1,2,0,0]]},"cursor":{"x":1.5,"y":2.0}}}',
  presence_left: '{"type":"presence_left","clientId":"c2"}',
  error:
    '{"type":"error","error":{"code":"invalid-message","message":"type: Input tag \'x\' found",' +
    '"diagnostics":[],"fields":{"type":"bad"}}}',
};

// What `reviews.events` encodes for each message of team review.
const THREAD = JSON.stringify(thread(4, { version: 2, at: 2 }));
const COMMENT = JSON.stringify(comment(41, { mentions: [GRACE] }));
const REVIEW_ENCODED: Record<ReviewMessage["type"], string> = {
  comment_thread_created: `{"type":"comment_thread_created","thread":${THREAD}}`,
  comment_added: `{"type":"comment_added","thread":4,"comment":${COMMENT}}`,
  comment_edited: `{"type":"comment_edited","thread":4,"comment":${COMMENT}}`,
  comment_deleted: `{"type":"comment_deleted","thread":4,"comment":${JSON.stringify(comment(41, { body: "", deleted: true }))}}`,
  comment_thread_resolved:
    '{"type":"comment_thread_resolved","thread":4,"user":{"id":2,"username":"grace"},"at":"2026-01-02T12:00:00Z"}',
  comment_thread_reopened:
    '{"type":"comment_thread_reopened","thread":4,"user":{"id":1,"username":"ada"},"at":"2026-01-02T12:05:00Z"}',
  review_requested: `{"type":"review_requested","version":2,"request":${JSON.stringify(
    reviewRequest({
      reviewers: [
        { user: GRACE, role: "editor", latest: verdict({ verdict: "comment", acknowledged: [] }) },
      ],
    }),
  )},"state":"in_review"}`,
  review_verdict: `{"type":"review_verdict","version":2,"verdict":${JSON.stringify(verdict())},"state":"approved"}`,
  approval_revoked: `{"type":"approval_revoked","version":2,"verdict":${JSON.stringify(
    verdict({
      counts: false,
      revocation: { by: ADA, reason: "Approved the wrong plan", at: "2026-01-02T12:10:00Z" },
    }),
  )},"state":"in_review"}`,
};

function parsed(text: string): ServerMessage {
  const result = parseServerMessage(text);
  if (!result.ok) {
    throw new Error(result.error);
  }
  if (result.kind !== "pipeline") {
    throw new Error(`read as ${result.kind}`);
  }
  return result.message;
}

function refusal(text: string): string {
  const result = parseServerMessage(text);
  if (result.ok) {
    throw new Error(`accepted ${text}`);
  }
  return result.error;
}

describe("parseServerMessage", () => {
  it.each(Object.entries(ENCODED))("reads %s as the server encodes it", (type, text) => {
    const message = parsed(text);
    expect(message.type).toBe(type);
    expect(message).toEqual(JSON.parse(text));
  });

  it("gives typed fields", () => {
    const message = parsed(ENCODED.snapshot);
    if (message.type !== "snapshot") {
      throw new Error("not a snapshot");
    }
    expect(message.document.nodes[0]?.name).toBe("Source: s");
    expect(message.plan.vertices[VERTEX]?.maxParallelism).toBe(128);
    expect(message.you.user.username).toBe("ada");
  });

  it("fills what the server's models default", () => {
    const message = parsed(
      '{"type":"presence","client":{"clientId":"c1","user":{"id":1,"username":"ada"},"role":"viewer"}}',
    );
    expect(message).toEqual({
      type: "presence",
      client: {
        clientId: "c1",
        user: { id: 1, username: "ada" },
        role: "viewer",
        selection: { nodes: [], edges: [] },
        cursor: null,
      },
    });
    const error = parsed('{"type":"error","error":{"code":"x","message":"y"}}');
    expect(error).toEqual({
      type: "error",
      error: { code: "x", message: "y", diagnostics: [], fields: {} },
    });
  });

  it("reads the edit of edit_applied as an edit, with its node id", () => {
    const message = parsed(
      ENCODED.edit_applied.replace(
        '{"kind":"move_node","nodeId":1,"x":5,"y":6}',
        '{"kind":"add_node","node":{"name":"Filter","id":4}}',
      ),
    );
    expect(message.type === "edit_applied" && message.edit).toEqual({
      kind: "add_node",
      node: { name: "Filter", id: 4 },
    });
  });

  it.each(Object.entries(REVIEW_ENCODED))(
    "reads team review's %s as the server encodes it",
    (type, text) => {
      const result = parseServerMessage(text);
      const message: unknown = JSON.parse(text);
      expect(result).toEqual({ ok: true, kind: "review", message });
      expect(result.ok && result.message.type).toBe(type);
    },
  );

  it.each([
    [REVIEW_ENCODED.comment_added.replace('"thread":4', '"thread":"4"'), "comment_added: thread"],
    [
      REVIEW_ENCODED.comment_thread_created.replace('"kind":"node"', '"kind":"room"'),
      "comment_thread_created: thread.target.kind: must be one of pipeline, node, edge, vertex",
    ],
    [
      REVIEW_ENCODED.review_verdict.replace('"approve"', '"shrug"'),
      "review_verdict: verdict.verdict: must be one of",
    ],
    [
      REVIEW_ENCODED.review_requested.replace('"in_review"', '"maybe"'),
      "review_requested: state: must be one of",
    ],
    [
      REVIEW_ENCODED.review_verdict.replace(`"${OPERATOR}"`, '"ABC"'),
      "review_verdict: verdict.acknowledged.0: must be 32 lower-case hex digits",
    ],
  ])("refuses a review message that is not what the server sends: %s", (text, error) => {
    expect(refusal(text)).toContain(error);
  });

  it("knows every message of team review by the server's names", () => {
    expect([...REVIEW_SERVER_MESSAGE_TYPES].sort()).toEqual([
      "approval_revoked",
      "comment_added",
      "comment_deleted",
      "comment_edited",
      "comment_thread_created",
      "comment_thread_reopened",
      "comment_thread_resolved",
      "review_requested",
      "review_verdict",
    ]);
  });

  it.each([
    ["not json", "not JSON"],
    ["[1]", "a message must be a JSON object"],
    ['{"kind":"snapshot"}', "unknown message type null"],
    ['{"type":"explode"}', 'unknown message type "explode"'],
    ['{"type":"presence_left"}', "presence_left: clientId: must be a string"],
    ['{"type":"presence_left","clientId":3}', "presence_left: clientId: must be a string"],
    [
      ENCODED.edit_rejected.replace('"conflict"', '"bored"'),
      "edit_rejected: reason: must be one of conflict, invalid, forbidden",
    ],
    [
      ENCODED.edit_applied.replace('"revision":4', '"revision":4.5'),
      "edit_applied: revision: must be an integer",
    ],
    [
      ENCODED.edit_applied.replace('"rebased":true', '"rebased":"yes"'),
      "edit_applied: rebased: must be true or false",
    ],
    [
      ENCODED.edit_applied.replace('"kind":"move_node"', '"kind":"teleport"'),
      "edit_applied: edit: 'kind' must be one of",
    ],
    [
      ENCODED.edit_applied.replace('"planDelta":{}', '"planDelta":{"nodes":{"set":[]}}'),
      "edit_applied: planDelta: nodes: 'set'",
    ],
    [
      ENCODED.snapshot.replace('"format":"streamgraph/v1"', '"format":"other"'),
      "snapshot: document: 'format' must be",
    ],
    [
      ENCODED.snapshot.replace('"format":"liveplan/v1"', '"format":"other"'),
      "snapshot: plan: 'format' must be",
    ],
    [
      ENCODED.snapshot.replace('"role":"editor"', '"role":null'),
      "snapshot: presence.0.role: must be a string",
    ],
    [
      ENCODED.presence.replace('"cursor":{"x":1.5,"y":2.0}', '"cursor":{"x":1.5}'),
      "presence: client.cursor.y: must be a number",
    ],
    [
      ENCODED.presence.replace("[[1,2,0,0]]", '[["a"]]'),
      "presence: client.selection.edges.0.0: must be an integer",
    ],
    [ENCODED.error.replace('"code":"invalid-message",', ""), "error: error.code: must be a string"],
  ])("refuses %s", (text, error) => {
    expect(refusal(text)).toContain(error);
  });
});

describe("client messages", () => {
  it("encode with the field names of the server's inbound models", () => {
    const edit = { kind: "remove_node", nodeId: 2 } as const;
    expect(JSON.parse(encodeClientMessage(editRequest("op-1", 3, edit)))).toEqual({
      type: "edit",
      opId: "op-1",
      baseRevision: 3,
      edit: { kind: "remove_node", nodeId: 2 },
    });
    expect(
      encodeClientMessage(presenceRequest({ nodes: [1], edges: [[1, 2, 0, 0]] }, { x: 1, y: 2 })),
    ).toBe(
      '{"type":"presence","selection":{"nodes":[1],"edges":[[1,2,0,0]]},"cursor":{"x":1,"y":2}}',
    );
    expect(encodeClientMessage(resyncRequest())).toBe('{"type":"resync"}');
  });

  it("name at most the server's limit of selected nodes and edges in presence", () => {
    const nodes = Array.from({ length: 5_000 }, (_, i) => i + 1);
    const edges = nodes.map((n): EdgeKey => [n, n + 1, 0, 0]);
    const sent = presenceRequest({ nodes, edges }, null);
    expect(sent.selection.nodes).toHaveLength(SELECTION_MAX_ITEMS);
    expect(sent.selection.edges).toHaveLength(SELECTION_MAX_ITEMS);
    expect(sent.selection.nodes[0]).toBe(1);
    expect(SELECTION_MAX_ITEMS).toBe(1_000);
  });

  it("keep the limits the server's models put on what a client sends", () => {
    const defs = wireSchema.$defs;
    expect(defs.Selection.properties.nodes.maxItems).toBe(SELECTION_MAX_ITEMS);
    expect(defs.Selection.properties.edges.maxItems).toBe(SELECTION_MAX_ITEMS);
    expect(defs.EditRequest.properties.opId.maxLength).toBe(OP_ID_MAX_LENGTH);
  });
});
