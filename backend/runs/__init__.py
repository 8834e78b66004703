"""Django app for pipeline runs on Spark and their live subtask states (docs/RUNTIME.md)."""
