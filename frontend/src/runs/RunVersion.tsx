import { useState } from "react";

import { ApiError } from "../api/http";
import { getCatalog, getVersion } from "../api/resources";
import { DEFAULT_CLUSTER, listClusters, startRun, type Cluster } from "../api/runs";
import { navigate } from "../app/router";
import { errorText } from "../ui/useResource";
import { describeProblems, type Problem } from "./problems";
import { RunParameters } from "./RunParameters";
import { overridableFields, runOverrides, type ParameterField } from "./runParameters";
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

/** The override form's fields: hidden, loading (both null), loaded, or failed to load. */
type ParameterFields =
  | { readonly shown: false }
  | {
      readonly shown: true;
      readonly fields: readonly ParameterField[] | null;
      readonly error: string | null;
    };

/** The fields of the version's sources and sinks a run may override. */
async function parameterFields(pipelineId: number, version: number): Promise<ParameterField[]> {
  const [detail, catalog] = await Promise.all([getVersion(pipelineId, version), getCatalog()]);
  return overridableFields(detail.document, catalog);
}

/** The server's clusters, when there is a choice (more than the default one). */
async function clusterChoice(): Promise<readonly Cluster[] | null> {
  const clusters = await listClusters();
  return clusters.length > 1 ? clusters : null;
}

/**
 * Run a saved version (editors): a Run button that opens a line with, for
 * owners of a server with several clusters, the cluster to run on and, on
 * demand, the sources' and sinks' parameters to override for this run; on
 * start it goes to the run's page. A version that cannot run says why, problem
 * by problem.
 */
export function RunVersion(props: {
  readonly pipelineId: number;
  readonly version: number;
  /** Owners may run on another cluster than the default. */
  readonly canChooseCluster: boolean;
  readonly onReveal?: ((node: number) => void) | undefined;
}) {
  const { pipelineId, version, canChooseCluster, onReveal } = props;
  const [open, setOpen] = useState(false);
  const [clusters, setClusters] = useState<readonly Cluster[] | null>(null);
  const [cluster, setCluster] = useState(DEFAULT_CLUSTER);
  const [busy, setBusy] = useState(false);
  const [refusal, setRefusal] = useState<Refusal | null>(null);
  const [fields, setFields] = useState<ParameterFields>({ shown: false });
  const [texts, setTexts] = useState<ReadonlyMap<string, string>>(new Map());
  const [fieldErrors, setFieldErrors] = useState<ReadonlyMap<string, string>>(new Map());
  const showParameters = async (): Promise<void> => {
    setFields({ shown: true, fields: null, error: null });
    try {
      setFields({ shown: true, fields: await parameterFields(pipelineId, version), error: null });
    } catch (error) {
      setFields({ shown: true, fields: null, error: errorText(error) });
    }
  };
  const start = async (): Promise<void> => {
    const overrides =
      fields.shown && fields.fields !== null ? runOverrides(fields.fields, texts) : null;
    if (overrides !== null && !overrides.ok) {
      setFieldErrors(overrides.errors);
      return;
    }
    setFieldErrors(new Map());
    setBusy(true);
    setRefusal(null);
    try {
      const parameters = overrides?.parameters ?? null;
      const run = await startRun(pipelineId, {
        version,
        ...(cluster === DEFAULT_CLUSTER ? {} : { cluster }),
        ...(parameters === null ? {} : { parameters }),
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
          if (canChooseCluster) {
            clusterChoice().then(setClusters, () => {
              setClusters(null); // the default cluster then, as for everyone else
            });
          }
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
        {clusters !== null && (
          <label>
            Cluster{" "}
            <select
              value={cluster}
              onChange={(event) => {
                setCluster(event.target.value);
              }}
              title="Where the run executes: the server's clusters, each with its limits"
              data-testid={`version-run-cluster-${version}`}
            >
              {clusters.map((choice) => (
                <option key={choice.name} value={choice.name}>
                  {choice.name} (parallelism ≤ {choice.maxParallelism})
                </option>
              ))}
            </select>
          </label>
        )}
        <button
          type="submit"
          className="button button--small button--primary"
          disabled={busy}
          data-testid={`version-run-start-${version}`}
        >
          {busy ? "Starting…" : `Run v${version}`}
        </button>
        {!fields.shown && (
          <button
            type="button"
            className="link-button"
            onClick={() => {
              void showParameters();
            }}
            title="Run on other inputs or into other outputs, without a new version"
            data-testid={`version-run-parameters-open-${version}`}
          >
            Inputs &amp; outputs…
          </button>
        )}
        <button
          type="button"
          className="button button--small"
          onClick={() => {
            setOpen(false);
            setRefusal(null);
            setFields({ shown: false });
            setTexts(new Map());
            setFieldErrors(new Map());
          }}
        >
          Close
        </button>
      </form>
      {fields.shown && fields.error !== null && <p className="form-error">{fields.error}</p>}
      {fields.shown && fields.fields === null && fields.error === null && (
        <p className="muted">Loading the version&apos;s parameters…</p>
      )}
      {fields.shown && fields.fields !== null && (
        <RunParameters
          version={version}
          fields={fields.fields}
          texts={texts}
          errors={fieldErrors}
          onChange={(key, text) => {
            setTexts((previous) => new Map(previous).set(key, text));
          }}
        />
      )}
      {refusal !== null && (
        <RunProblems message={refusal.message} problems={refusal.problems} onReveal={onReveal} />
      )}
    </div>
  );
}
