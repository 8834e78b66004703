package streamgraph.spark;

import org.apache.spark.sql.api.java.UDF4;

/** SQL `subtask(key, narrowLongs, maxParallelism, parallelism)`: FlinkKeys.subtask. */
public final class SubtaskOf implements UDF4<Object, Boolean, Integer, Integer, Integer> {
  private static final long serialVersionUID = 1L;

  @Override
  public Integer call(Object key, Boolean narrowLongs, Integer maxParallelism, Integer parallelism) {
    return FlinkKeys.subtask(key, narrowLongs, maxParallelism, parallelism);
  }
}
