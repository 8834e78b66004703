package streamgraph.spark;

import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.api.java.UDF1;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.DataTypes;

/**
 * SQL `sg_evaluated(test)`: `test`, once it has been computed. Registered as
 * nondeterministic, which Spark's optimizer cannot see through: it computes it for every
 * row that reaches it, moves no filter before it and never folds it to a constant (a
 * filter of false would skip its input). How the SQL path has Spark compute what may fail
 * where the Python chain computes it (runtime/spark/sqlpath.py).
 */
public final class Evaluated implements UDF1<Boolean, Boolean> {
  private static final long serialVersionUID = 1L;

  /** Names it in `spark`'s SQL. */
  public static void register(SparkSession spark) {
    spark
        .udf()
        .register(
            "sg_evaluated",
            functions.udf(new Evaluated(), DataTypes.BooleanType).asNondeterministic());
  }

  @Override
  public Boolean call(Boolean test) {
    return test;
  }
}
