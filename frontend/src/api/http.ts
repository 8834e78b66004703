/**
 * The REST client: JSON in and out, the API token in the Authorization header,
 * and the project's one error shape (`{"error": {code, message, diagnostics,
 * fields}}`) turned into an `ApiError` a page can show as it is.
 */

import type { Diagnostic } from "../graph/streamgraph";

const TOKEN_KEY = "streamgraph-studio.token";

export function storedToken(): string | null {
  return window.localStorage.getItem(TOKEN_KEY);
}

export function storeToken(token: string | null): void {
  if (token === null) {
    window.localStorage.removeItem(TOKEN_KEY);
  } else {
    window.localStorage.setItem(TOKEN_KEY, token);
  }
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly diagnostics: readonly Diagnostic[] = [],
    readonly fields: Readonly<Record<string, readonly string[]>> = {},
  ) {
    super(message);
    this.name = "ApiError";
  }

  /**
   * The message with the first field's detail, for one-line notices; the message alone
   * when it already says it (the server words a request's first problem as
   * `field: what is wrong`).
   */
  get detail(): string {
    const [name, messages] = Object.entries(this.fields)[0] ?? [];
    const first = messages?.[0];
    if (name === undefined || typeof first !== "string" || this.message.includes(first)) {
      return this.message;
    }
    return `${this.message} (${name}: ${first})`;
  }
}

/** Called when the server says the token is no longer valid (the app signs out). */
let onUnauthorized: () => void = () => undefined;

export function setUnauthorizedHandler(handler: () => void): void {
  onUnauthorized = handler;
}

function errorFrom(status: number, body: unknown): ApiError {
  if (typeof body === "object" && body !== null && "error" in body) {
    const error = body.error;
    if (typeof error === "object" && error !== null) {
      const e = error as {
        code?: unknown;
        message?: unknown;
        diagnostics?: unknown;
        fields?: unknown;
      };
      return new ApiError(
        status,
        typeof e.code === "string" ? e.code : "error",
        typeof e.message === "string" ? e.message : `The server answered ${status}.`,
        Array.isArray(e.diagnostics) ? (e.diagnostics as Diagnostic[]) : [],
        typeof e.fields === "object" && e.fields !== null
          ? (e.fields as Record<string, string[]>)
          : {},
      );
    }
  }
  return new ApiError(status, "http-error", `The server answered ${status}.`);
}

export interface RequestOptions {
  /** Sent as JSON; a `FormData` as `multipart/form-data` (file uploads). */
  readonly body?: unknown;
  readonly query?: Readonly<Record<string, string | number | undefined>>;
  readonly signal?: AbortSignal;
}

function url(path: string, query: RequestOptions["query"]): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query ?? {})) {
    if (value !== undefined) {
      params.set(key, String(value));
    }
  }
  const search = params.toString();
  return `/api/${path}${search === "" ? "" : `?${search}`}`;
}

async function send(method: string, path: string, options: RequestOptions): Promise<Response> {
  const headers: Record<string, string> = { Accept: "application/json" };
  const token = storedToken();
  if (token !== null) {
    headers.Authorization = `Token ${token}`;
  }
  const init: RequestInit = { method, headers, credentials: "omit" };
  if (options.body instanceof FormData) {
    // The browser writes the multipart boundary into the Content-Type itself.
    init.body = options.body;
  } else if (options.body !== undefined) {
    headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(options.body);
  }
  if (options.signal !== undefined) {
    init.signal = options.signal;
  }
  let response: Response;
  try {
    response = await fetch(url(path, options.query), init);
  } catch (error) {
    if (error instanceof DOMException && error.name === "AbortError") {
      throw error;
    }
    throw new ApiError(0, "network", "The server cannot be reached. Is `make run` running?");
  }
  if (!response.ok) {
    let body: unknown;
    try {
      body = await response.json();
    } catch {
      body = null;
    }
    if (response.status === 401 && token !== null) {
      onUnauthorized();
    }
    throw errorFrom(response.status, body);
  }
  return response;
}

/** A JSON request; resolves to the parsed body (null for 204). */
export async function request<T>(
  method: "GET" | "POST" | "PATCH" | "PUT" | "DELETE",
  path: string,
  options: RequestOptions = {},
): Promise<T> {
  const response = await send(method, path, options);
  if (response.status === 204) {
    return null as T;
  }
  return (await response.json()) as T;
}

/** A GET whose body is text (file downloads). */
export async function requestText(path: string, options: RequestOptions = {}): Promise<string> {
  const response = await send("GET", path, options);
  return response.text();
}
