import { useState } from "react";

import { ApiError } from "../api/http";
import { getVersion } from "../api/resources";
import { startRun } from "../api/runs";
import { navigate } from "../app/router";
import { errorText } from "../ui/useResource";
import { describeProblems, type Problem } from "./problems";
import { RunProblems } from "./RunProblems";
import "./panels.css";

interface Refusal {
  readonly message: string;
  readonly problems: readonly Problem[];
}

async function refusalOf(error: unknown, pipelineId: number, version: number): Promise<Refusal> {
  if (!(error instanceof ApiError) || error.diagnostics.length === 0) {
    return { message: errorText(error), problems: [] };
  }
  // Name the nodes and edges as the version has them (the working copy may differ).
  const document = await getVersion(pipelineId, version).then(
    (detail) => detail.document,
    () => null,
  );
  return { message: error.message, problems: describeProblems(error.diagnostics, document) };
}

/**
 * Run a saved version (editors): a Run button that opens a line with an
 * optional Spark master, and on start goes to the run's page. A version that
 * cannot run says why, problem by problem.
 */
export function RunVersion(props: {
  readonly pipelineId: number;
  readonly version: number;
  readonly onReveal?: ((node: number) => void) | undefined;
}) {
  const { pipelineId, version, onReveal } = props;
  const [open, setOpen] = useState(false);
  const [master, setMaster] = useState("");
  const [busy, setBusy] = useState(false);
  const [refusal, setRefusal] = useState<Refusal | null>(null);
  const start = async (): Promise<void> => {
    setBusy(true);
    setRefusal(null);
    try {
      const trimmed = master.trim();
      const run = await startRun(pipelineId, {
        version,
        ...(trimmed === "" ? {} : { sparkMaster: trimmed }),
      });
      navigate({ page: "run", pipeline: pipelineId, run: run.id });
    } catch (error) {
      setRefusal(await refusalOf(error, pipelineId, version));
      setBusy(false);
    }
  };
  if (!open) {
    return (
      <button
        type="button"
        className="link-button run-version__open"
        onClick={() => {
          setOpen(true);
        }}
        title={`Run version ${version} on Spark`}
        data-testid={`version-run-${version}`}
      >
        ▶ Run
      </button>
    );
  }
  return (
    <div className="run-version">
      <form
        className="run-form"
        onSubmit={(event) => {
          event.preventDefault();
          void start();
        }}
      >
        <label>
          Spark master{" "}
          <input
            value={master}
            onChange={(event) => {
              setMaster(event.target.value);
            }}
            placeholder="server default"
            aria-label="Spark master (optional)"
            title="e.g. local[2,3]: 2 threads, 3 attempts per task. Empty: the server's default."
            data-testid={`version-run-master-${version}`}
          />
        </label>
        <button
          type="submit"
          className="button button--small button--primary"
          disabled={busy}
          data-testid={`version-run-start-${version}`}
        >
          {busy ? "Starting…" : `Run v${version}`}
        </button>
        <button
          type="button"
          className="button button--small"
          onClick={() => {
            setOpen(false);
            setRefusal(null);
          }}
        >
          Close
        </button>
      </form>
      {refusal !== null && (
        <RunProblems message={refusal.message} problems={refusal.problems} onReveal={onReveal} />
      )}
    </div>
  );
}
