package streamgraph.spark;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * The numbers of a sequence as the runtime's sequence and generator sources split them over
 * their subtasks (runtime.operators.sources.number_splits, Flink's NumberSequenceIterator
 * split): subtask i counts from starts[i] up to, not including, stops[i], computed by the
 * caller. Partition i of the result is subtask i; each row is (subtask, number).
 */
public final class NumberRanges {
  private NumberRanges() {}

  public static final StructType SCHEMA =
      new StructType()
          .add("subtask", DataTypes.IntegerType, false)
          .add("value", DataTypes.LongType, false);

  public static JavaRDD<InternalRow> read(JavaSparkContext context, long[] starts, long[] stops) {
    if (starts.length != stops.length) {
      throw new IllegalArgumentException("a start and a stop per subtask");
    }
    int parallelism = starts.length;
    List<Integer> subtasks = new ArrayList<>();
    for (int i = 0; i < parallelism; i++) {
      subtasks.add(i);
    }
    long[] from = starts.clone();
    long[] to = stops.clone();
    return context
        .parallelize(subtasks, parallelism)
        .mapPartitions(
            indexes -> {
              int subtask = indexes.next();
              return new Numbers(subtask, from[subtask], to[subtask]);
            });
  }

  public static Dataset<Row> frame(SparkSession spark, JavaRDD<InternalRow> rows) {
    return ((org.apache.spark.sql.classic.SparkSession) spark)
        .internalCreateDataFrame(rows.rdd(), SCHEMA, false);
  }

  /** One subtask's numbers, made as they are read. */
  static final class Numbers implements Iterator<InternalRow> {
    private final int subtask;
    private final long stop;
    private long next;

    Numbers(int subtask, long start, long stop) {
      this.subtask = subtask;
      this.next = start;
      this.stop = stop;
    }

    @Override
    public boolean hasNext() {
      return next < stop;
    }

    @Override
    public InternalRow next() {
      if (next >= stop) {
        throw new NoSuchElementException();
      }
      GenericInternalRow row = new GenericInternalRow(2);
      row.setInt(0, subtask);
      row.setLong(1, next);
      next++;
      return row;
    }
  }
}
