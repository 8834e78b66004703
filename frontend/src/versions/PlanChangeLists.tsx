import type { ExecutionGraphChanges, JobGraphChanges, PlanDiff, VertexRef } from "../api/resources";

/** Chains added, removed, renamed, split and merged, and parallelism changes. */
export function JobGraphChangeList(props: {
  readonly changes: JobGraphChanges;
  readonly onReveal: (node: number) => void;
}) {
  const { changes, onReveal } = props;
  const vertex = (ref: VertexRef) => (
    <button
      type="button"
      className="link-button"
      title={`JobVertexID ${ref.id}`}
      onClick={() => {
        onReveal(ref.head);
      }}
    >
      {ref.name}
    </button>
  );
  const { added, removed, renamed, split, merged, parallelism, vertexCount } = changes;
  const none =
    added.length +
      removed.length +
      renamed.length +
      split.length +
      merged.length +
      parallelism.length ===
    0;
  return (
    <>
      <p className="muted">
        {vertexCount.old === vertexCount.new
          ? `${vertexCount.new} vertices in both.`
          : `Vertices: ${vertexCount.old} → ${vertexCount.new}.`}
        {none && " The same chains, names and parallelism."}
      </p>
      <ul className="change-list" data-testid="job-graph-changes">
        {added.map((ref) => (
          <li key={`added-${ref.id}`} className="change change--added">
            {vertex(ref)} added
          </li>
        ))}
        {removed.map((ref) => (
          <li key={`removed-${ref.id}`} className="change change--removed">
            {vertex(ref)} removed
          </li>
        ))}
        {renamed.map((entry) => (
          <li key={`renamed-${entry.node}`} className="change change--changed">
            Renamed: {entry.old} → {entry.new}
          </li>
        ))}
        {split.map((entry) => (
          <li key={`split-${entry.old.id}`} className="change change--changed">
            {vertex(entry.old)} split into{" "}
            {entry.into.map((part, index) => (
              <span key={part.id}>
                {index > 0 && ", "}
                {vertex(part)}
              </span>
            ))}
          </li>
        ))}
        {merged.map((entry) => (
          <li key={`merged-${entry.new.id}`} className="change change--changed">
            {entry.from.map((part, index) => (
              <span key={part.id}>
                {index > 0 && ", "}
                {vertex(part)}
              </span>
            ))}{" "}
            merged into {vertex(entry.new)}
          </li>
        ))}
        {parallelism.map((entry) => (
          <li key={`parallelism-${entry.vertex.id}`} className="change change--changed">
            {vertex(entry.vertex)}: parallelism {entry.old} → {entry.new}
          </li>
        ))}
      </ul>
    </>
  );
}

/** Subtask counts, and key groups that move to another subtask. */
export function ExecutionGraphChangeList({ changes }: { readonly changes: ExecutionGraphChanges }) {
  return (
    <>
      <p className="muted">
        {changes.subtasks.old === changes.subtasks.new
          ? `${changes.subtasks.new} subtasks in both.`
          : `Subtasks: ${changes.subtasks.old} → ${changes.subtasks.new}.`}
      </p>
      <ul className="change-list" data-testid="execution-graph-changes">
        {changes.vertices.map((entry) => (
          <li key={entry.vertex.id} className="change change--changed">
            <strong>{entry.vertex.name}</strong>: subtasks {entry.subtasks.old} →{" "}
            {entry.subtasks.new}
            {entry.maxParallelism.old !== entry.maxParallelism.new &&
              `, max parallelism ${entry.maxParallelism.old} → ${entry.maxParallelism.new}`}
            <div className="muted">
              {entry.movedKeyGroups === null
                ? (entry.note ?? "The key groups cannot be compared.")
                : `${entry.movedKeyGroups} of ${entry.keyGroups ?? entry.maxParallelism.new} key groups move to another subtask.`}
            </div>
          </li>
        ))}
      </ul>
    </>
  );
}

/** The problems of either version, if any. */
export function DiagnosticsList({
  diagnostics,
}: {
  readonly diagnostics: PlanDiff["diagnostics"];
}) {
  const sides = [
    ["Older version", diagnostics.old],
    ["Newer version", diagnostics.new],
  ] as const;
  if (diagnostics.old.length + diagnostics.new.length === 0) {
    return null;
  }
  return (
    <section>
      <h2>Problems</h2>
      {sides.map(([label, list]) =>
        list.length === 0 ? null : (
          <div key={label}>
            <h3>{label}</h3>
            <ul className="diagnostic-list">
              {list.map((d, index) => (
                <li key={index} className={`diagnostic diagnostic--${d.severity}`}>
                  {d.message}
                </li>
              ))}
            </ul>
          </div>
        ),
      )}
    </section>
  );
}
