import { lazy, Suspense, useEffect } from "react";

import { HomePage } from "../pages/HomePage";
import { SignInPage } from "../pages/SignInPage";
import { useAccount } from "../store/account";
import { navigate, useRoute } from "./router";

// The canvas library and elkjs load only with the pages that draw graphs.
const EditorPage = lazy(() => import("../editor/EditorPage"));
const DiffRoute = lazy(() => import("./DiffRoute"));
const RunRoute = lazy(() => import("./RunRoute"));
const ReviewRoute = lazy(() => import("./ReviewRoute"));

export function App() {
  const route = useRoute();
  const user = useAccount((state) => state.user);

  useEffect(() => {
    void useAccount.getState().load();
  }, []);

  useEffect(() => {
    if (user === null && route.page !== "signin") {
      navigate({ page: "signin" }, { replace: true });
    }
  }, [user, route.page]);

  if (user === undefined) {
    return <div className="page-loading">Loading…</div>;
  }
  if (user === null || route.page === "signin") {
    return <SignInPage />;
  }
  switch (route.page) {
    case "home":
      return <HomePage workspace={route.workspace} />;
    case "editor":
      return (
        <Suspense fallback={<div className="page-loading">Loading the editor…</div>}>
          <EditorPage
            key={route.pipeline}
            pipelineId={route.pipeline}
            thread={route.thread ?? null}
          />
        </Suspense>
      );
    case "diff":
      return (
        <Suspense fallback={<div className="page-loading">Loading the diff…</div>}>
          <DiffRoute pipelineId={route.pipeline} from={route.from} to={route.to} />
        </Suspense>
      );
    case "run":
      return (
        <Suspense fallback={<div className="page-loading">Loading the run…</div>}>
          <RunRoute key={route.run} pipelineId={route.pipeline} runId={route.run} />
        </Suspense>
      );
    case "review":
      return (
        <Suspense fallback={<div className="page-loading">Loading the review…</div>}>
          <ReviewRoute
            key={`${route.pipeline}/${route.version}`}
            pipelineId={route.pipeline}
            version={route.version}
          />
        </Suspense>
      );
    case "not-found":
      return (
        <div className="page-message">
          <h1>Nothing here</h1>
          <p>
            <code>{route.path}</code> is not a page of StreamGraph Studio.
          </p>
          <a
            href="/"
            onClick={(event) => {
              event.preventDefault();
              navigate({ page: "home", workspace: null });
            }}
          >
            Go to your pipelines
          </a>
        </div>
      );
  }
}
