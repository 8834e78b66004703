import type { SideTab } from "../store/runView";
import { useRun, useRunPage, useRunView } from "./context";
import { Exceptions } from "./Exceptions";
import { exceptionsTab, failedAttempts, runError } from "./outcomes";
import { SinkOutputs } from "./SinkOutputs";
import { VertexPanel } from "./VertexPanel";

/** The right-hand panel: the selected vertex's subtasks, the sinks' output, the failures. */
export function RunSidePanel() {
  const { view } = useRunPage();
  const tab = useRunView((state) => state.tab);
  const sinkCount = useRun((state) => state.info?.sinks.length ?? 0);
  const failures = useRun((state) => failedAttempts(state.vertices, state.subtasks).length);
  const error = useRun((state) => (state.info === null ? null : runError(state.info)));
  const exceptions = exceptionsTab(failures, error);
  const tabs: readonly { readonly id: SideTab; readonly label: string }[] = [
    { id: "subtasks", label: "Subtasks" },
    { id: "output", label: sinkCount > 0 ? `Output (${sinkCount})` : "Output" },
    { id: "exceptions", label: exceptions.label },
  ];
  return (
    <aside className="run-page__side">
      <nav className="tabs run-tabs" aria-label="Run details">
        {tabs.map((item) => (
          <button
            key={item.id}
            type="button"
            className={`tab${tab === item.id ? " is-active" : ""}${item.id === "exceptions" && exceptions.alert ? " run-tab--alert" : ""}`}
            onClick={() => {
              view.getState().setTab(item.id);
            }}
            data-testid={`run-tab-${item.id}`}
          >
            {item.label}
          </button>
        ))}
      </nav>
      <div className="run-page__side-body">
        {tab === "subtasks" && <VertexPanel />}
        {tab === "output" && <SinkOutputs />}
        {tab === "exceptions" && <Exceptions />}
      </div>
    </aside>
  );
}
