/**
 * The compiler's golden fixtures (`tests/compiler/data/fixtures/`), real documents
 * Flink produced, read from the repository for the frontend's tests.
 */

import { readdirSync, readFileSync } from "node:fs";

import { parseDocument, type StreamGraphDocument } from "../graph/streamgraph";

const FIXTURES = new URL("../../../tests/compiler/data/fixtures/", import.meta.url);
const SUFFIX = ".streamgraph.json";

/** The names of every `*.streamgraph.json` fixture, sorted. */
export function fixtureNames(): string[] {
  return readdirSync(FIXTURES)
    .filter((file) => file.endsWith(SUFFIX))
    .map((file) => file.slice(0, -SUFFIX.length))
    .sort();
}

/** The fixture's JSON exactly as stored (parsed, not checked). */
export function fixtureJson(name: string): unknown {
  return JSON.parse(readFileSync(new URL(`${name}${SUFFIX}`, FIXTURES), "utf8"));
}

/** The fixture as a checked document. */
export function loadFixture(name: string): StreamGraphDocument {
  const parsed = parseDocument(fixtureJson(name));
  if (!parsed.ok) {
    throw new Error(`fixture ${name}: ${parsed.diagnostics.map((d) => d.message).join("; ")}`);
  }
  return parsed.document;
}
