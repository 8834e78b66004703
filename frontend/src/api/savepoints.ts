/**
 * A pipeline's savepoints over REST (docs/ARCHITECTURE.md, `backend/savepoints/`): Flink
 * `_metadata` files a team uploads, and the restore check of the working copy or a version
 * against one. The shapes are generated from `backend/savepoints/events.py`
 * (`./generated/wire`); one typed function per endpoint.
 *
 * Viewers list, read and check; editors and owners upload, change and delete.
 */

import type * as Wire from "./generated/wire";
import { request } from "./http";

export type SavepointSummary = Wire.SavepointSummary;
export type SavepointDetail = Wire.SavepointDetail;
export type SavepointOperator = Wire.SavepointOperator;
export type StateSizeEntry = Wire.StateSizeEntry;
export type StateKind = StateSizeEntry["kind"];
export type RestoreCheck = Wire.RestoreCheck;
export type OperatorRestore = Wire.OperatorRestore;
export type RestoreOutcome = OperatorRestore["outcome"];
export type RestoreTarget = Wire.RestoreTarget;
export type NewOperator = Wire.NewOperator;
export type RestoreWarning = Wire.RestoreWarning;
export type RestoreFailure = Wire.RestoreFailure;

/** What the check answers with (409) when the version checked does not compile. */
export const PLAN_NOT_COMPILED = "plan-not-compiled";

function signalOf(signal: AbortSignal | undefined): { signal?: AbortSignal } {
  return signal === undefined ? {} : { signal };
}

function base(pipeline: number): string {
  return `pipelines/${pipeline}/savepoints/`;
}

/** The pipeline's savepoints, newest first. */
export function listSavepoints(
  pipeline: number,
  signal?: AbortSignal,
): Promise<SavepointSummary[]> {
  return request("GET", base(pipeline), signalOf(signal));
}

export function getSavepoint(
  pipeline: number,
  savepoint: number,
  signal?: AbortSignal,
): Promise<SavepointDetail> {
  return request("GET", `${base(pipeline)}${savepoint}/`, signalOf(signal));
}

export interface SavepointUpload {
  /** The savepoint's (or retained checkpoint's) `_metadata` file. */
  readonly file: Blob;
  readonly fileName: string;
  readonly label: string;
  /** Make it the savepoint production restores from. */
  readonly current: boolean;
  /** The version whose job took it, if known. */
  readonly writtenBy: number | null;
}

/**
 * Upload a savepoint (editors). A file Flink did not write is an `ApiError`
 * `invalid-savepoint` saying at which byte it stops making sense.
 */
export function uploadSavepoint(
  pipeline: number,
  upload: SavepointUpload,
): Promise<SavepointDetail> {
  const form = new FormData();
  form.append("file", upload.file, upload.fileName);
  form.append("label", upload.label);
  form.append("current", upload.current ? "true" : "false");
  if (upload.writtenBy !== null) {
    form.append("writtenBy", String(upload.writtenBy));
  }
  return request("POST", base(pipeline), { body: form });
}

export interface SavepointChange {
  readonly label?: string;
  readonly isCurrent?: boolean;
  /** null: not known. */
  readonly writtenBy?: number | null;
}

/** Relabel a savepoint, make it the current one or stop it being so (editors). */
export function updateSavepoint(
  pipeline: number,
  savepoint: number,
  change: SavepointChange,
): Promise<SavepointSummary> {
  return request("PATCH", `${base(pipeline)}${savepoint}/`, { body: change });
}

export function deleteSavepoint(pipeline: number, savepoint: number): Promise<null> {
  return request("DELETE", `${base(pipeline)}${savepoint}/`);
}

export interface CheckQuery {
  /** A version number, or the working copy. */
  readonly checked: number | "working";
  /** Start even if some state maps to no operator (Flink's `--allowNonRestoredState`). */
  readonly allowNonRestoredState: boolean;
  /** Check it rescaled: `parallelism` for the JobVertex `vertex`, or the job's default. */
  readonly rescale?: { readonly vertex?: string; readonly parallelism: number };
}

/**
 * What Flink 2.3 does when the version (or the working copy) starts from the savepoint; an
 * `ApiError` `plan-not-compiled` (409) when it does not compile.
 */
export function checkSavepoint(
  pipeline: number,
  savepoint: number,
  query: CheckQuery,
  signal?: AbortSignal,
): Promise<RestoreCheck> {
  return request("GET", `${base(pipeline)}${savepoint}/check/`, {
    query: {
      version: query.checked === "working" ? undefined : query.checked,
      allowNonRestoredState: query.allowNonRestoredState ? "true" : "false",
      vertex: query.rescale?.vertex,
      parallelism: query.rescale?.parallelism,
    },
    ...signalOf(signal),
  });
}
