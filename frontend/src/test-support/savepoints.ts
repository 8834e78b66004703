/**
 * Restore checks the server answered (`src/savepoints/testdata/`) and the real Flink
 * fixtures they check (`tests/compiler/data/savepoints/`), for the savepoint modules' tests.
 */

import { readFileSync } from "node:fs";

import type { RestoreCheck, SavepointSummary } from "../api/savepoints";
import { parseDocument, type StreamGraphDocument } from "../graph/streamgraph";

const CHECKS = new URL("../savepoints/testdata/", import.meta.url);
const FIXTURES = new URL("../../../tests/compiler/data/savepoints/", import.meta.url);

/** A recorded check: `counting--sum-parallelism` or `counting--insert-map`. */
export function recordedCheck(name: string): RestoreCheck {
  return JSON.parse(readFileSync(new URL(`${name}.check.json`, CHECKS), "utf8")) as RestoreCheck;
}

/** A document of the savepoint fixtures, such as `counting.v1`. */
export function savepointDocument(name: string): StreamGraphDocument {
  const raw: unknown = JSON.parse(
    readFileSync(new URL(`${name}.streamgraph.json`, FIXTURES), "utf8"),
  );
  const parsed = parseDocument(raw);
  if (!parsed.ok) {
    throw new Error(`fixture ${name}: ${parsed.diagnostics.map((d) => d.message).join("; ")}`);
  }
  return parsed.document;
}

export function savepointSummary(overrides: Partial<SavepointSummary> = {}): SavepointSummary {
  return {
    id: 1,
    label: "production 2026-11-20",
    size: 6440,
    sha256: "0".repeat(64),
    formatVersion: 6,
    checkpointId: 1,
    operatorCount: 6,
    isCurrent: false,
    uploadedBy: { id: 1, username: "ada" },
    uploadedAt: "2026-11-20T09:30:00Z",
    writtenBy: null,
    ...overrides,
  };
}
