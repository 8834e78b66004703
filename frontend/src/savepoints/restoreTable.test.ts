import { describe, expect, it } from "vitest";

import { recordedCheck } from "../test-support/savepoints";
import { newOperatorRows, restoreRows, rowCounts } from "./restoreTable";

describe("the restore table", () => {
  const check = recordedCheck("counting--sum-parallelism");
  const rows = restoreRows(check);

  it("has a row per savepoint operator, in the file's order", () => {
    expect(rows.map((row) => [row.name, row.outcomeLabel, row.tone])).toEqual([
      ["Sum", "lost", "problem"],
      ["Source: Numbers", "restored", "ok"],
      ["Mod", "restored", "ok"],
      ["Sink: Print to Std. Out", "empty, dropped", "dropped"],
      ["Drop", "empty, dropped", "dropped"],
      ["_stream_key_by_map_operator", "restored", "ok"],
    ]);
  });

  it("says what each holds and where it goes", () => {
    const [sum, source] = rows;
    expect(sum?.state).toBe("keyed 3.2 KiB");
    expect(sum?.target).toBeNull();
    expect(sum?.reasons[1]).toMatch(/set its uidHash to c27dcf7b54ef6bfd6cff02ca8870b681/);
    expect(source?.state).toBe("list 530 B, coordinator 16 B");
    expect(source?.target).toMatchObject({
      node: 1,
      text: "Source: Numbers (1)",
      matchedBy: "generated ID",
      subtasks: "p2, max 128",
    });
  });

  it("counts the rows by what became of them", () => {
    expect(rowCounts(rows)).toBe("6 operator states (3.7 KiB): 3 restored, 1 not, 2 empty");
  });

  it("lists the operators that start empty, those keeping state first", () => {
    const inserted = recordedCheck("counting--insert-map");
    expect(newOperatorRows(inserted.newOperators).map((row) => row.text)).toEqual([
      "Sum (6)",
      "Extra (3)",
      "_stream_key_by_map_operator (4)",
      "Drop (7)",
      "Sink: Print to Std. Out (8)",
    ]);
  });
});
