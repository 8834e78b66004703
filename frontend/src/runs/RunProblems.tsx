import type { Problem } from "./problems";
import "./panels.css";

/** Why a version cannot run: each problem with where it is, and a button to show that node. */
export function RunProblems(props: {
  readonly message: string;
  readonly problems: readonly Problem[];
  readonly onReveal?: ((node: number) => void) | undefined;
}) {
  const { message, problems, onReveal } = props;
  return (
    <div className="run-problems" role="alert" data-testid="run-problems">
      <strong>{message}</strong>
      {problems.length > 0 && (
        <ul>
          {problems.map((problem, index) => (
            <li
              key={index}
              className={`diagnostic--${problem.diagnostic.severity}`}
              data-testid={`run-problem-${problem.diagnostic.code}`}
            >
              <span className="run-problems__where">{problem.where}</span>
              {problem.diagnostic.field !== null && (
                <>
                  {" "}
                  · <code>{problem.diagnostic.field}</code>
                </>
              )}
              : {problem.diagnostic.message}{" "}
              <span className="muted">({problem.diagnostic.code})</span>
              {onReveal !== undefined && problem.node !== null && (
                <>
                  {" "}
                  <button
                    type="button"
                    className="link-button"
                    onClick={() => {
                      if (problem.node !== null) {
                        onReveal(problem.node);
                      }
                    }}
                  >
                    show
                  </button>
                </>
              )}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
