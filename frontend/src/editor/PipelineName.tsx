import { useState } from "react";

import { ApiError } from "../api/http";
import * as api from "../api/resources";

/** The pipeline's name in the top bar; editors click it to rename the pipeline. */
export function PipelineName(props: {
  readonly pipeline: api.PipelineSummary;
  readonly canEdit: boolean;
  readonly onRenamed: (pipeline: api.PipelineSummary) => void;
  readonly onError: (message: string) => void;
}) {
  const [editing, setEditing] = useState(false);
  const [name, setName] = useState(props.pipeline.name);
  if (!editing) {
    return (
      <button
        type="button"
        className="pipeline-name"
        disabled={!props.canEdit}
        title={props.canEdit ? "Rename" : undefined}
        onClick={() => {
          setName(props.pipeline.name);
          setEditing(true);
        }}
      >
        {props.pipeline.name}
      </button>
    );
  }
  return (
    <form
      className="inline-form"
      onSubmit={async (event) => {
        event.preventDefault();
        try {
          props.onRenamed(await api.renamePipeline(props.pipeline.id, name.trim()));
          setEditing(false);
        } catch (caught) {
          props.onError(caught instanceof ApiError ? caught.detail : String(caught));
        }
      }}
    >
      <input
        value={name}
        autoFocus
        onChange={(event) => {
          setName(event.target.value);
        }}
        onKeyDown={(event) => {
          if (event.key === "Escape") {
            setEditing(false);
          }
        }}
        required
      />
    </form>
  );
}
