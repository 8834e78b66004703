"""Runs a run plan on Spark (docs/RUNTIME.md, "Execution on Spark").

Importing this package, or any module in it, starts nothing: the SparkSession is
created by `session.get_session` on first use.
"""
