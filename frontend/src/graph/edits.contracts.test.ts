/**
 * The edit operations' shared cases (tests/contracts/edits.json), which the server's
 * implementation runs too (tests/compiler/test_contracts.py): the two cannot drift.
 */
import { readFileSync } from "node:fs";

import { describe, expect, it } from "vitest";

import { affectsPlan, applyEdit, EditRejected, parseEdit, type AppliedEdit } from "./edits";
import type { JsonValue } from "./json";
import type { StreamGraphDocument } from "./streamgraph";

interface EditCase {
  readonly edit: unknown;
}

interface Cases {
  readonly documents: Readonly<Record<string, StreamGraphDocument>>;
  readonly apply: readonly ApplyCase[];
  readonly parse: readonly EditCase[];
  readonly affectsPlan: readonly (EditCase & { readonly affectsPlan: boolean })[];
}

interface ApplyCase {
  readonly name: string;
  readonly document: string;
  readonly edits: readonly unknown[];
  readonly expect?: { readonly document: JsonValue; readonly applied: readonly JsonValue[] };
  readonly rejected?: Readonly<Record<string, JsonValue>>;
}

// Read as JSON, not imported: an imported `"__proto__"` key would become a prototype.
const cases = JSON.parse(
  readFileSync(new URL("../../../tests/contracts/edits.json", import.meta.url), "utf8"),
) as Cases;

function documentNamed(name: string): StreamGraphDocument {
  const document = cases.documents[name];
  if (document === undefined) {
    throw new Error(`no document ${name} in the cases`);
  }
  return structuredClone(document);
}

describe("the edit operations' shared cases", () => {
  it.each(cases.apply.map((item) => [item.name, item] as const))("apply: %s", (_, item) => {
    let document = documentNamed(item.document);
    const inputs: [StreamGraphDocument, string][] = [];
    const applied: AppliedEdit[] = [];
    try {
      for (const data of item.edits) {
        inputs.push([document, JSON.stringify(document)]);
        const result = applyEdit(document, parseEdit(data));
        document = result.document;
        applied.push(result.applied);
        expect(JSON.stringify(document), "an edit changed nothing").not.toBe(inputs.at(-1)?.[1]);
      }
    } catch (error) {
      if (!(error instanceof EditRejected) || item.rejected === undefined) {
        throw error;
      }
      const seen: Record<string, JsonValue> = {
        code: error.code,
        message: error.message,
        node: error.node,
        edge: error.edge,
        field: error.field,
      };
      const keys = Object.keys(item.rejected);
      expect(Object.fromEntries(keys.map((key) => [key, seen[key]]))).toEqual(item.rejected);
      return;
    } finally {
      for (const [before, text] of inputs) {
        expect(JSON.stringify(before), "an input document was modified").toBe(text);
      }
    }
    expect(item.expect, "the edits were applied").toBeDefined();
    expect(JSON.stringify(document)).toBe(JSON.stringify(item.expect?.document));
    expect(applied).toEqual(item.expect?.applied);
  });

  it.each(cases.parse.map((item) => [JSON.stringify(item.edit), item] as const))(
    "parse: %s round trips",
    (_, item) => {
      const edit = parseEdit(item.edit);
      expect(parseEdit(JSON.parse(JSON.stringify(edit)))).toEqual(edit);
      expect(edit).toEqual(item.edit);
    },
  );

  it.each(cases.affectsPlan.map((item) => [JSON.stringify(item.edit), item] as const))(
    "affectsPlan: %s",
    (_, item) => {
      expect(affectsPlan(parseEdit(item.edit))).toBe(item.affectsPlan);
    },
  );
});
