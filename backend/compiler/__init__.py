"""The plan compiler: what Apache Flink 2.3 builds from a StreamGraph, in pure Python.

Input is a `streamgraph/v1` document; `compiler.pipeline.compile_document` runs
the passes in order (see that module) and returns a `Compilation` with the
diagnostics and every product: hashes (OperatorIDs / JobVertexIDs), chains, the
JobGraph and the ExecutionGraph. `compiler.render` turns a compilation into the
output documents (`jobgraph/v1`, `executiongraph/v1`, `explain/v1`, Flink's plan
JSON). This package imports nothing from the web stack (checked by
import-linter in `make test`).
"""
