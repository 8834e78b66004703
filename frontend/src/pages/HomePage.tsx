import { useCallback, useEffect, useRef, useState } from "react";

import { navigate } from "../app/router";
import { ApiError } from "../api/http";
import * as api from "../api/resources";
import { useAccount } from "../store/account";
import { downloadText, fileStem } from "./download";
import { Inbox } from "./Inbox";
import { MembersSection } from "./MembersSection";
import { ReviewPolicySection } from "./ReviewPolicySection";

function message(error: unknown): string {
  return error instanceof ApiError ? error.detail : String(error);
}

/** Workspaces on the left; the chosen workspace's pipelines and members on the right. */
export function HomePage({ workspace: chosen }: { readonly workspace: number | null }) {
  const user = useAccount((state) => state.user);
  const signOut = useAccount((state) => state.signOut);
  const [workspaces, setWorkspaces] = useState<api.Workspace[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);

  const reload = useCallback(async () => {
    try {
      setWorkspaces(await api.listWorkspaces());
    } catch (caught) {
      setError(message(caught));
    }
  }, []);

  useEffect(() => {
    void reload();
  }, [reload]);

  const current = workspaces?.find((w) => w.id === chosen) ?? workspaces?.[0] ?? null;

  return (
    <div className="home">
      <header className="topbar">
        <span className="topbar__brand">StreamGraph Studio</span>
        <span className="topbar__spacer" />
        <span className="topbar__user">{user?.username}</span>
        <button className="button" type="button" onClick={() => void signOut()}>
          Sign out
        </button>
      </header>
      <div className="home__body">
        <aside className="home__sidebar">
          <h2>Workspaces</h2>
          {workspaces === null && error === null && <p className="muted">Loading…</p>}
          <ul className="workspace-list">
            {workspaces?.map((w) => (
              <li key={w.id}>
                <button
                  type="button"
                  className={w.id === current?.id ? "workspace-item is-current" : "workspace-item"}
                  onClick={() => {
                    setNotice(null);
                    navigate({ page: "home", workspace: w.id });
                  }}
                >
                  <span>{w.name}</span>
                  <span className="role-pill">{w.role}</span>
                </button>
              </li>
            ))}
          </ul>
          <NewWorkspaceForm
            onCreated={(w) => {
              void reload().then(() => {
                navigate({ page: "home", workspace: w.id });
              });
            }}
          />
        </aside>
        <main className="home__main">
          <Inbox />
          {error !== null && <p className="form-error">{error}</p>}
          {notice !== null && (
            <p className="notice" role="status" data-testid="home-notice">
              {notice}
            </p>
          )}
          {current !== null && (
            <WorkspacePipelines
              key={current.id}
              workspace={current}
              onOwnRoleChanged={() => void reload()}
              onLeft={(done) => {
                setNotice(done);
                void reload().then(() => {
                  navigate({ page: "home", workspace: null });
                });
              }}
            />
          )}
          {workspaces?.length === 0 && (
            <p className="muted">You are not in a workspace yet: create one on the left.</p>
          )}
        </main>
      </div>
    </div>
  );
}

function NewWorkspaceForm({ onCreated }: { readonly onCreated: (w: api.Workspace) => void }) {
  const [name, setName] = useState("");
  const [error, setError] = useState<string | null>(null);
  return (
    <form
      className="inline-form"
      onSubmit={async (event) => {
        event.preventDefault();
        try {
          const created = await api.createWorkspace(name.trim());
          setName("");
          setError(null);
          onCreated(created);
        } catch (caught) {
          setError(message(caught));
        }
      }}
    >
      <input
        placeholder="New workspace name"
        value={name}
        onChange={(event) => {
          setName(event.target.value);
        }}
        required
      />
      <button className="button" type="submit">
        Create
      </button>
      {error !== null && <p className="form-error">{error}</p>}
    </form>
  );
}

function WorkspacePipelines(props: {
  readonly workspace: api.Workspace;
  readonly onOwnRoleChanged: () => void;
  readonly onLeft: (notice: string) => void;
}) {
  const { workspace } = props;
  const [pipelines, setPipelines] = useState<api.PipelineSummary[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [name, setName] = useState("");
  const fileInput = useRef<HTMLInputElement>(null);
  const canEdit = workspace.role !== "viewer";

  const reload = useCallback(async () => {
    try {
      setPipelines(await api.listPipelines(workspace.id));
    } catch (caught) {
      setError(message(caught));
    }
  }, [workspace.id]);

  useEffect(() => {
    void reload();
  }, [reload]);

  const act = async (action: () => Promise<unknown>, done?: string): Promise<void> => {
    setError(null);
    setNotice(null);
    try {
      await action();
      if (done !== undefined) {
        setNotice(done);
      }
      await reload();
    } catch (caught) {
      setError(message(caught));
    }
  };

  const importFile = async (file: File): Promise<void> => {
    let content: unknown;
    try {
      content = JSON.parse(await file.text());
    } catch {
      setError(`${file.name} is not JSON: choose a streamgraph/v1 document or a Flink plan.`);
      return;
    }
    await act(async () => {
      const created = await api.importPipeline(workspace.id, content, { fileName: file.name });
      const from = created.importedFrom === "streamgraph" ? "streamgraph/v1" : "a Flink plan";
      setNotice(`Imported "${created.name}" from ${from}.`);
    });
  };

  return (
    <section>
      <div className="section-head">
        <h1>{workspace.name}</h1>
        <span className="role-pill">{workspace.role}</span>
      </div>
      {canEdit && (
        <div className="toolbar-row">
          <form
            className="inline-form"
            onSubmit={async (event) => {
              event.preventDefault();
              try {
                const created = await api.createPipeline(workspace.id, name.trim());
                navigate({ page: "editor", pipeline: created.id });
              } catch (caught) {
                setError(message(caught));
              }
            }}
          >
            <input
              data-testid="new-pipeline-name"
              placeholder="New pipeline name"
              value={name}
              onChange={(event) => {
                setName(event.target.value);
              }}
              required
            />
            <button className="button button--primary" type="submit" data-testid="create-pipeline">
              Create pipeline
            </button>
          </form>
          <button
            className="button"
            type="button"
            onClick={() => {
              fileInput.current?.click();
            }}
          >
            Import…
          </button>
          <input
            ref={fileInput}
            type="file"
            accept=".json,application/json"
            hidden
            data-testid="import-file"
            onChange={(event) => {
              const file = event.target.files?.[0];
              event.target.value = "";
              if (file !== undefined) {
                void importFile(file);
              }
            }}
          />
          <span className="muted">streamgraph/v1 documents and Flink plan JSON</span>
        </div>
      )}
      {error !== null && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
      {notice !== null && <p className="notice">{notice}</p>}
      {pipelines === null ? (
        <p className="muted">Loading…</p>
      ) : pipelines.length === 0 ? (
        <p className="muted">No pipelines yet.</p>
      ) : (
        <table className="table pipeline-table">
          <thead>
            <tr>
              <th>Name</th>
              <th>Revision</th>
              <th>Updated</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {pipelines.map((p) => (
              <PipelineRow
                key={p.id}
                pipeline={p}
                canEdit={canEdit}
                onRename={(newName) => act(() => api.renamePipeline(p.id, newName))}
                onDelete={() => act(() => api.deletePipeline(p.id), `Deleted "${p.name}".`)}
                onError={setError}
              />
            ))}
          </tbody>
        </table>
      )}
      <MembersSection
        workspace={workspace}
        onOwnRoleChanged={props.onOwnRoleChanged}
        onLeft={props.onLeft}
      />
      <ReviewPolicySection workspace={workspace} />
    </section>
  );
}

function PipelineRow(props: {
  readonly pipeline: api.PipelineSummary;
  readonly canEdit: boolean;
  readonly onRename: (name: string) => Promise<void>;
  readonly onDelete: () => Promise<void>;
  readonly onError: (message: string) => void;
}) {
  const { pipeline } = props;
  const [renaming, setRenaming] = useState(false);
  const [name, setName] = useState(pipeline.name);
  const exportAs = async (format: api.ExportFormat): Promise<void> => {
    try {
      const text = await api.exportPipeline(pipeline.id, format);
      const suffix = format === "streamgraph" ? "streamgraph.json" : "plan.json";
      downloadText(text, `${fileStem(pipeline.name)}.${suffix}`);
    } catch (caught) {
      props.onError(message(caught));
    }
  };
  return (
    <tr data-testid={`pipeline-row-${pipeline.id}`}>
      <td>
        {renaming ? (
          <form
            className="inline-form"
            onSubmit={async (event) => {
              event.preventDefault();
              await props.onRename(name.trim());
              setRenaming(false);
            }}
          >
            <input
              value={name}
              autoFocus
              onChange={(event) => {
                setName(event.target.value);
              }}
              required
            />
            <button className="button" type="submit">
              Save
            </button>
            <button
              className="button"
              type="button"
              onClick={() => {
                setRenaming(false);
              }}
            >
              Cancel
            </button>
          </form>
        ) : (
          <a
            href={`/pipelines/${pipeline.id}`}
            onClick={(event) => {
              event.preventDefault();
              navigate({ page: "editor", pipeline: pipeline.id });
            }}
          >
            {pipeline.name}
          </a>
        )}
      </td>
      <td>{pipeline.revision}</td>
      <td title={pipeline.updatedAt}>{new Date(pipeline.updatedAt).toLocaleString()}</td>
      <td className="row-actions">
        {props.canEdit && (
          <button
            className="button button--small"
            type="button"
            onClick={() => {
              setRenaming(true);
            }}
          >
            Rename
          </button>
        )}
        <button
          className="button button--small"
          type="button"
          onClick={() => void exportAs("streamgraph")}
        >
          Export
        </button>
        <button
          className="button button--small"
          type="button"
          title="Flink's getExecutionPlan() JSON"
          onClick={() => void exportAs("flink-plan")}
        >
          Flink plan
        </button>
        {props.canEdit && (
          <button
            className="button button--small button--danger"
            type="button"
            onClick={() => {
              if (window.confirm(`Delete "${pipeline.name}" with all its versions?`)) {
                void props.onDelete();
              }
            }}
          >
            Delete
          </button>
        )}
      </td>
    </tr>
  );
}
