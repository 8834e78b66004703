"""Readable errors out of what Spark reports for a failed Python task."""

from __future__ import annotations

from runtime.spark.errors import python_error_text

SPARK_TASK_FAILURE = """\
org.apache.spark.api.python.PythonException: [PYTHON_EXCEPTION] An exception was thrown \
from the Python worker: Traceback (most recent call last):
  File "/venv/lib/python3.11/site-packages/pyspark/python/lib/pyspark.zip/pyspark/worker.py", \
line 4327, in invoke_udf
    run_process()
  File "/venv/lib/python3.11/site-packages/pyspark/python/lib/pyspark.zip/pyspark/serializers.py", \
line 260, in dump_stream
    vs = list(itertools.islice(iterator, batch))
         ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/app/job.py", line 62, in fail
    raise KeyError("always")
KeyError: 'always'
 SQLSTATE: 38000
\tat org.apache.spark.api.python.BasePythonRunner$ReaderIterator.handlePythonException(\
PythonRunner.scala:1097)
\tat org.apache.spark.api.python.PythonRunner$$anon$5.read(PythonRunner.scala:1642)
"""


def test_the_exception_line_of_a_python_task_failure():
    assert python_error_text(SPARK_TASK_FAILURE) == "KeyError: 'always'"


def test_the_chains_own_errors_lose_their_module_path():
    text = SPARK_TASK_FAILURE.replace(
        "KeyError: 'always'",
        "runtime.operators.base.OperatorError: Map (node 2): ZeroDivisionError: division by zero",
    )
    assert python_error_text(text) == "Map (node 2): ZeroDivisionError: division by zero"


def test_other_qualified_exceptions_keep_their_class_name():
    text = SPARK_TASK_FAILURE.replace("KeyError: 'always'", "some.module.BadThing: it broke")
    assert python_error_text(text) == "BadThing: it broke"


def test_a_multi_line_message_is_kept_whole():
    text = SPARK_TASK_FAILURE.replace("KeyError: 'always'", "ValueError: first\nsecond line")
    assert python_error_text(text) == "ValueError: first\nsecond line"


def test_the_last_of_chained_tracebacks_wins():
    text = (
        'Traceback (most recent call last):\n  File "a.py", line 1, in f\n'
        "KeyError: 'x'\n\nDuring handling of the above exception, another exception occurred:\n\n"
        + SPARK_TASK_FAILURE
    )
    assert python_error_text(text) == "KeyError: 'always'"


def test_without_a_traceback_the_first_line():
    assert python_error_text("Job 3 cancelled\nmore detail") == "Job 3 cancelled"


def test_long_messages_are_bounded():
    assert len(python_error_text("ValueError: " + "x" * 10_000)) == 2000
