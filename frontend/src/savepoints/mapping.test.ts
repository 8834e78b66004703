import { describe, expect, it } from "vitest";

import { applyEdit } from "../graph/edits";
import type { StreamGraphDocument, StreamNode } from "../graph/streamgraph";
import { recordedCheck, savepointDocument } from "../test-support/savepoints";
import { choicesFor, lostStates, mappingPlan, nodeOptions, suggestedChoices } from "./mapping";

const SUM = "c27dcf7b54ef6bfd6cff02ca8870b681";

function withNode(
  document: StreamGraphDocument,
  id: number,
  fields: Pick<StreamNode, "uidHash">,
): StreamGraphDocument {
  return {
    ...document,
    nodes: document.nodes.map((node) => (node.id === id ? { ...node, ...fields } : node)),
  };
}

describe("mapping lost state", () => {
  const check = recordedCheck("counting--sum-parallelism");
  const document = savepointDocument("counting--sum-parallelism");

  it("lists the lost state with the operator the server suggests", () => {
    expect(lostStates(check)).toEqual([
      { operatorId: SUM, owner: "Sum (c27dcf7b…)", state: "keyed 3.2 KiB", suggested: 5 },
    ]);
    expect(suggestedChoices(check, document)).toEqual(new Map([[SUM, 5]]));
    const gone = { ...document, nodes: document.nodes.filter((node) => node.id !== 5) };
    expect(suggestedChoices(check, gone)).toEqual(new Map([[SUM, null]]));
  });

  it("keeps what the user chose over the suggestion, for state still lost", () => {
    const chosen = new Map([
      [SUM, 6],
      ["ab".repeat(16), 1],
    ]);
    expect(choicesFor(check, document, chosen)).toEqual(new Map([[SUM, 6]]));
    expect(choicesFor(check, document, new Map([[SUM, null]]))).toEqual(new Map([[SUM, null]]));
    expect(choicesFor(check, document, new Map())).toEqual(new Map([[SUM, 5]]));
  });

  it("offers every operator of the working copy", () => {
    expect(nodeOptions(document).map((option) => option.label)).toEqual([
      "Source: Numbers (1) · source.sequence",
      "Mod (2) · map",
      "_stream_key_by_map_operator (3) · key_by",
      "Sum (5) · reduce",
      "Drop (6) · filter",
      "Sink: Print to Std. Out (7) · sink.print",
    ]);
  });

  it("sets the chosen operator's uidHash to the lost state's OperatorID", () => {
    const plan = mappingPlan(check, document, suggestedChoices(check, document));
    expect(plan.problems).toEqual([]);
    expect(plan.edits).toEqual([
      { kind: "set_field", element: "node", nodeId: 5, field: "uidHash", value: SUM },
    ]);
    expect(plan.lines).toEqual([
      "Sum (5) takes the state saved under c27dcf7b…: its uidHash is set to that ID, the " +
        "repair Flink's documentation prescribes.",
    ]);
    const edit = plan.edits[0];
    if (edit === undefined) {
      throw new Error("no edit");
    }
    const repaired = applyEdit(document, edit).document;
    expect(repaired.nodes.find((node) => node.id === 5)?.uidHash).toBe(SUM);
  });

  it("makes no edit for state left lost, or a uidHash already set", () => {
    expect(mappingPlan(check, document, new Map([[SUM, null]])).edits).toEqual([]);
    const pinned = withNode(document, 5, { uidHash: SUM });
    expect(mappingPlan(check, pinned, new Map([[SUM, 5]]))).toEqual({
      edits: [],
      lines: [],
      problems: [],
    });
  });

  it("says which uidHash it replaces", () => {
    const other = withNode(document, 5, { uidHash: "ab".repeat(16) });
    expect(mappingPlan(check, other, new Map([[SUM, 5]])).lines[0]).toContain(
      "set to that ID (in place of abababab…)",
    );
  });

  it("refuses an operator that restores other state, or one chosen for two states", () => {
    const source = mappingPlan(check, document, new Map([[SUM, 1]]));
    expect(source.edits).toEqual([]);
    expect(source.problems).toEqual([
      "Source: Numbers (1) restores the state of Source: Numbers (cbc357cc…): with its " +
        "uidHash set to c27dcf7b… it would leave that state behind.",
    ]);

    const second = "ab".repeat(16);
    const sum = check.operators.find((row) => row.operatorId === SUM);
    if (sum === undefined) {
      throw new Error("no row of Sum");
    }
    const twoLost = {
      ...check,
      operators: [
        ...check.operators,
        { ...sum, operatorId: second, name: "Count", suggestedNode: null },
      ],
    };
    const twice = mappingPlan(
      twoLost,
      document,
      new Map([
        [SUM, 5],
        [second, 5],
      ]),
    );
    expect(twice.problems).toEqual([
      "Sum (5) is chosen for Sum (c27dcf7b…) and Count (abababab…): an operator takes over " +
        "the state of one.",
    ]);
  });

  it("refuses a node the working copy no longer has", () => {
    expect(mappingPlan(check, document, new Map([[SUM, 42]])).problems).toEqual([
      "Node 42, chosen for Sum (c27dcf7b…), is not in the working copy.",
    ]);
  });
});
