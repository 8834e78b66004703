import { fieldKey, type ParameterField } from "./runParameters";

/**
 * The version's source and sink parameters as fields a run may override: each shows
 * the version's value until the user types another.
 */
export function RunParameters(props: {
  readonly version: number;
  readonly fields: readonly ParameterField[];
  readonly texts: ReadonlyMap<string, string>;
  readonly errors: ReadonlyMap<string, string>;
  readonly onChange: (key: string, text: string) => void;
}) {
  const { version, fields, texts, errors, onChange } = props;
  if (fields.length === 0) {
    return (
      <p className="run-parameters__none muted">
        The sources and sinks of v{version} have no parameters to override.
      </p>
    );
  }
  const nodes = [...new Map(fields.map((field) => [field.node.id, field.node])).values()];
  return (
    <div className="run-parameters" data-testid={`version-run-parameters-${version}`}>
      <p className="run-parameters__lead muted">For this run only; the version keeps its values.</p>
      {nodes.map((node) => (
        <fieldset key={node.id} className="run-parameters__node">
          <legend>
            {node.name} <span className="muted">(node {node.id})</span>
          </legend>
          {fields
            .filter((field) => field.node.id === node.id)
            .map((field) => {
              const key = fieldKey(field);
              const text = texts.get(key) ?? field.current;
              const changed = text.trim() !== field.current.trim();
              return (
                <label
                  key={key}
                  className={`run-parameters__field${changed ? " run-parameters__field--changed" : ""}`}
                  title={field.spec.help}
                >
                  <span>{field.spec.label}</span>
                  <ParameterInput
                    field={field}
                    text={text}
                    onChange={(value) => {
                      onChange(key, value);
                    }}
                    testId={`run-param-${key}`}
                  />
                  {errors.has(key) && <span className="form-error">{errors.get(key)}</span>}
                </label>
              );
            })}
        </fieldset>
      ))}
    </div>
  );
}

function ParameterInput(props: {
  readonly field: ParameterField;
  readonly text: string;
  readonly onChange: (text: string) => void;
  readonly testId: string;
}) {
  const { field, text, onChange, testId } = props;
  const choices =
    field.spec.type === "boolean"
      ? ["true", "false"]
      : field.spec.type === "enum"
        ? (field.spec.choices ?? [])
        : null;
  if (choices !== null) {
    return (
      <select
        value={text}
        onChange={(event) => {
          onChange(event.target.value);
        }}
        data-testid={testId}
      >
        {!field.spec.required && <option value="">(default)</option>}
        {choices.map((choice) => (
          <option key={choice} value={choice}>
            {choice}
          </option>
        ))}
      </select>
    );
  }
  return (
    <input
      value={text}
      onChange={(event) => {
        onChange(event.target.value);
      }}
      placeholder={field.spec.required ? "" : "(default)"}
      data-testid={testId}
    />
  );
}
