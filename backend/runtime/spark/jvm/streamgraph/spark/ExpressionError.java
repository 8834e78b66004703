package streamgraph.spark;

/**
 * What a translated expression raises where its Python raises, in Python's words and with
 * the operator it belongs to ("Map (node 2): ValueError: ..."), which the driver reads out
 * of Spark's failure text (runtime/spark/errors.py).
 */
public final class ExpressionError extends RuntimeException {
  private static final long serialVersionUID = 1L;

  ExpressionError(String where, String words) {
    super(where.isEmpty() ? words : where + ": " + words);
  }
}
