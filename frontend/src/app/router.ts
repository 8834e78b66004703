/**
 * The app's few routes, on the History API: deep links work because the server
 * answers every app path with the same page.
 */

import { useSyncExternalStore } from "react";

export type Route =
  | { readonly page: "signin" }
  | { readonly page: "home"; readonly workspace: number | null }
  /** `thread`: a comment thread to show at once (a mention opened from the home page). */
  | { readonly page: "editor"; readonly pipeline: number; readonly thread?: number }
  | {
      readonly page: "diff";
      readonly pipeline: number;
      readonly from: number | "working";
      readonly to: number | "working";
    }
  | { readonly page: "run"; readonly pipeline: number; readonly run: number }
  | { readonly page: "review"; readonly pipeline: number; readonly version: number }
  | { readonly page: "not-found"; readonly path: string };

function versionRef(value: string | null, fallback: number | "working"): number | "working" {
  if (value === null) {
    return fallback;
  }
  if (value === "working") {
    return "working";
  }
  const number = Number(value);
  return Number.isInteger(number) && number > 0 ? number : fallback;
}

export function parseRoute(pathname: string, search: string): Route {
  const query = new URLSearchParams(search);
  if (pathname === "/signin") {
    return { page: "signin" };
  }
  if (pathname === "/" || pathname === "") {
    const workspace = Number(query.get("workspace"));
    return {
      page: "home",
      workspace: Number.isInteger(workspace) && workspace > 0 ? workspace : null,
    };
  }
  const editor = /^\/pipelines\/(\d+)\/?$/.exec(pathname);
  if (editor?.[1] !== undefined) {
    const thread = Number(query.get("thread"));
    return Number.isInteger(thread) && thread > 0
      ? { page: "editor", pipeline: Number(editor[1]), thread }
      : { page: "editor", pipeline: Number(editor[1]) };
  }
  const review = /^\/pipelines\/(\d+)\/versions\/(\d+)\/review\/?$/.exec(pathname);
  if (review?.[1] !== undefined && review[2] !== undefined && Number(review[2]) > 0) {
    return { page: "review", pipeline: Number(review[1]), version: Number(review[2]) };
  }
  const diff = /^\/pipelines\/(\d+)\/diff\/?$/.exec(pathname);
  if (diff?.[1] !== undefined) {
    return {
      page: "diff",
      pipeline: Number(diff[1]),
      from: versionRef(query.get("from"), 1),
      to: versionRef(query.get("to"), "working"),
    };
  }
  const run = /^\/pipelines\/(\d+)\/runs\/(\d+)\/?$/.exec(pathname);
  if (run?.[1] !== undefined && run[2] !== undefined) {
    return { page: "run", pipeline: Number(run[1]), run: Number(run[2]) };
  }
  return { page: "not-found", path: pathname };
}

export function routePath(route: Route): string {
  switch (route.page) {
    case "signin":
      return "/signin";
    case "home":
      return route.workspace === null ? "/" : `/?workspace=${route.workspace}`;
    case "editor":
      return route.thread === undefined
        ? `/pipelines/${route.pipeline}`
        : `/pipelines/${route.pipeline}?thread=${route.thread}`;
    case "review":
      return `/pipelines/${route.pipeline}/versions/${route.version}/review`;
    case "diff":
      return `/pipelines/${route.pipeline}/diff?from=${route.from}&to=${route.to}`;
    case "run":
      return `/pipelines/${route.pipeline}/runs/${route.run}`;
    case "not-found":
      return route.path;
  }
}

const listeners = new Set<() => void>();

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  window.addEventListener("popstate", listener);
  return () => {
    listeners.delete(listener);
    window.removeEventListener("popstate", listener);
  };
}

function currentLocation(): string {
  return window.location.pathname + window.location.search;
}

export function navigate(route: Route, options: { replace?: boolean } = {}): void {
  const path = routePath(route);
  if (path !== currentLocation()) {
    if (options.replace === true) {
      window.history.replaceState(null, "", path);
    } else {
      window.history.pushState(null, "", path);
    }
  }
  for (const listener of listeners) {
    listener();
  }
}

export function useRoute(): Route {
  const location = useSyncExternalStore(subscribe, currentLocation);
  const [pathname = "/", search = ""] = location.split(/(?=\?)/);
  return parseRoute(pathname, search);
}
