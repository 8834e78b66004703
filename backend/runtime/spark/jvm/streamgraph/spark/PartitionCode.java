package streamgraph.spark;

import org.apache.spark.sql.api.java.UDF2;

/** SQL `partition_code(subtask, partitions)`: FlinkKeys.partitionCode. */
public final class PartitionCode implements UDF2<Integer, Integer, Integer> {
  private static final long serialVersionUID = 1L;

  @Override
  public Integer call(Integer subtask, Integer partitions) {
    return FlinkKeys.partitionCode(subtask, partitions);
  }
}
