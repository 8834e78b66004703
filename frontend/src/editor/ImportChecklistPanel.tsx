import { diagnosticElements } from "../graph/canvas";
import { useDocumentStore, useEditor } from "./context";
import { checklistLines, checklistSummary, type ChecklistLine } from "./operatorKind";
import { useImportChecklist } from "./useImportChecklist";

/**
 * What an imported pipeline still needs before it runs, over all its nodes as one list;
 * a line selects its node (or input edge), whose inspector offers the suggested kind and
 * the fields. Nothing for a pipeline not imported from Flink's plan JSON.
 */
export function ImportChecklistPanel() {
  const { selection } = useEditor();
  const checklist = useImportChecklist();
  const document = useDocumentStore((state) => (checklist === null ? null : state.document));
  if (checklist === null) {
    return null;
  }
  const lines = checklistLines(checklist);

  const reveal = (line: ChecklistLine): void => {
    if (document === null) {
      return;
    }
    const { nodes, edges } = diagnosticElements(document, {
      node: line.edge === null ? line.node : null,
      edge: line.edge,
    });
    selection.getState().reveal(nodes, edges);
  };

  return (
    <section
      className="import-checklist"
      aria-label="Import checklist"
      data-testid="import-checklist"
      data-remaining={checklist.remaining}
    >
      <p className="import-checklist__summary">{checklistSummary(checklist)}</p>
      {lines.length > 0 && (
        <ol className="import-checklist__list">
          {lines.map((line, i) => (
            <li key={i}>
              <button
                type="button"
                className="import-checklist__item"
                data-testid={`import-checklist-${line.node}`}
                onClick={() => {
                  reveal(line);
                }}
              >
                <span className="problem__where">{line.name}</span>
                <span className="problem__message">{line.text}</span>
                {line.field !== null && <code className="problem__field">{line.field}</code>}
              </button>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
