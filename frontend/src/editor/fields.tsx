import { useEffect, useId, useRef, useState } from "react";

import { checkDraft, type Parsed } from "./values";

/**
 * A text field that commits on Enter or blur (one edit per change, not per
 * keystroke) and reverts on Escape. While it is not being edited it follows the
 * document, so a co-editor's change shows up in it. With `parse`, a text that does
 * not parse is not committed: the field shows its last valid value again and the
 * error beside it until the next change.
 */
export function CommitField(props: {
  readonly label: string;
  readonly value: string;
  readonly onCommit: (value: string) => void;
  /** Checks the text before it is committed (`onCommit` then gets only texts that parse). */
  readonly parse?: (text: string) => Parsed;
  readonly disabled?: boolean;
  readonly multiline?: boolean;
  readonly placeholder?: string;
  readonly help?: string;
  readonly error?: string | null;
  readonly testId?: string;
  readonly monospace?: boolean;
}) {
  const [draft, setDraft] = useState(props.value);
  const [refused, setRefused] = useState<string | null>(null);
  const editing = useRef(false);
  const id = useId();

  useEffect(() => {
    if (!editing.current) {
      setDraft(props.value);
    }
  }, [props.value]);

  const commit = (): void => {
    editing.current = false;
    if (draft === props.value) {
      return;
    }
    if (props.parse !== undefined) {
      const check = checkDraft(props.parse, draft, props.value);
      if (!check.ok) {
        setDraft(check.draft);
        setRefused(check.error);
        return;
      }
    }
    setRefused(null);
    props.onCommit(draft);
  };
  const error = refused ?? props.error ?? null;
  const common = {
    id,
    value: draft,
    disabled: props.disabled,
    placeholder: props.placeholder,
    "data-testid": props.testId,
    className: props.monospace === true ? "mono" : undefined,
    onFocus: () => {
      editing.current = true;
    },
    "aria-invalid": error !== null ? true : undefined,
    onChange: (event: React.ChangeEvent<HTMLInputElement | HTMLTextAreaElement>) => {
      editing.current = true;
      setRefused(null);
      setDraft(event.target.value);
    },
    onBlur: commit,
    onKeyDown: (event: React.KeyboardEvent<HTMLInputElement | HTMLTextAreaElement>) => {
      if (event.key === "Enter" && (props.multiline !== true || event.ctrlKey || event.metaKey)) {
        event.preventDefault();
        commit();
      } else if (event.key === "Escape") {
        editing.current = false;
        setRefused(null);
        setDraft(props.value);
      }
    },
  };
  return (
    <div className={`field${error !== null ? " has-error" : ""}`}>
      <label htmlFor={id}>{props.label}</label>
      {props.multiline === true ? <textarea rows={2} {...common} /> : <input {...common} />}
      {error !== null && (
        <span
          className="field__error"
          data-testid={props.testId === undefined ? undefined : `${props.testId}-error`}
        >
          {error}
        </span>
      )}
      {props.help !== undefined && props.help !== "" && (
        <span className="field__help">{props.help}</span>
      )}
    </div>
  );
}

export function SelectField<T extends string>(props: {
  readonly label: string;
  readonly value: T;
  readonly options: readonly T[];
  readonly onChange: (value: T) => void;
  /** How an option reads; its value by default. */
  readonly optionLabel?: (option: T) => string;
  readonly disabled?: boolean;
  readonly help?: string;
  readonly testId?: string;
}) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{props.label}</label>
      <select
        id={id}
        value={props.value}
        disabled={props.disabled}
        data-testid={props.testId}
        onChange={(event) => {
          props.onChange(event.target.value as T);
        }}
      >
        {props.options.map((option) => (
          <option key={option} value={option}>
            {props.optionLabel === undefined ? option : props.optionLabel(option)}
          </option>
        ))}
      </select>
      {props.help !== undefined && <span className="field__help">{props.help}</span>}
    </div>
  );
}

export function CheckField(props: {
  readonly label: string;
  readonly checked: boolean;
  readonly onChange: (checked: boolean) => void;
  readonly disabled?: boolean;
  readonly help?: string;
}) {
  return (
    <div className="field field--check">
      <label>
        <input
          type="checkbox"
          checked={props.checked}
          disabled={props.disabled}
          onChange={(event) => {
            props.onChange(event.target.checked);
          }}
        />
        {props.label}
      </label>
      {props.help !== undefined && <span className="field__help">{props.help}</span>}
    </div>
  );
}
