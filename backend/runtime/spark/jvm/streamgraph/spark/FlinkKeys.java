package streamgraph.spark;

import java.util.concurrent.ConcurrentHashMap;
import org.apache.spark.sql.Row;
import org.apache.spark.unsafe.hash.Murmur3_x86_32;

/**
 * Flink's key -> subtask assignment (KeyGroupRangeAssignment, MathUtils.murmurHash) in the
 * JVM, the same function as the Python runtime's compiler.keygroups, and the partition code
 * that makes Spark's hash partitioning land a row on a chosen subtask.
 */
public final class FlinkKeys {
  private FlinkKeys() {}

  /** Spark's HashPartitioning hashes a column with Murmur3 and this seed. */
  private static final int SPARK_HASH_SEED = 42;

  private static final ConcurrentHashMap<Integer, int[]> CODES = new ConcurrentHashMap<>();

  /**
   * The key's Java hashCode: String (UTF-16), Integer, Long, Boolean, and a Row as Flink's
   * TupleN (31 * h + field, from the first field). With narrowLongs, a Long that fits an int
   * hashes as an Integer: the runtime's rule for Python ints.
   */
  public static int hashCode(Object key, boolean narrowLongs) {
    if (key == null) {
      throw new IllegalArgumentException("a key may not be null");
    }
    if (key instanceof String || key instanceof Integer || key instanceof Boolean) {
      return key.hashCode();
    }
    if (key instanceof Long) {
      long value = (Long) key;
      if (narrowLongs && value == (int) value) {
        return (int) value;
      }
      return Long.hashCode(value);
    }
    if (key instanceof Row) {
      Row row = (Row) key;
      if (row.length() > 25) {
        throw new IllegalArgumentException("a tuple key has more than 25 fields");
      }
      int result = 0;
      for (int i = 0; i < row.length(); i++) {
        result = 31 * result + hashCode(row.get(i), narrowLongs);
      }
      return result;
    }
    throw new IllegalArgumentException(
        "keys must be int, str, bool or a tuple of them, not " + key.getClass().getName());
  }

  /** MathUtils.murmurHash(int): non-negative. */
  public static int murmurHash(int code) {
    int h = code * 0xcc9e2d51;
    h = Integer.rotateLeft(h, 15);
    h *= 0x1b873593;
    h = Integer.rotateLeft(h, 13);
    h = h * 5 + 0xe6546b64;
    h ^= 4;
    h ^= h >>> 16;
    h *= 0x85ebca6b;
    h ^= h >>> 13;
    h *= 0xc2b2ae35;
    h ^= h >>> 16;
    if (h >= 0) {
      return h;
    }
    return h != Integer.MIN_VALUE ? -h : 0;
  }

  public static int keyGroup(int hashCode, int maxParallelism) {
    return murmurHash(hashCode) % maxParallelism;
  }

  public static int operatorIndex(int maxParallelism, int parallelism, int keyGroup) {
    return keyGroup * parallelism / maxParallelism;
  }

  public static int subtask(Object key, boolean narrowLongs, int maxParallelism, int parallelism) {
    return operatorIndex(
        maxParallelism, parallelism, keyGroup(hashCode(key, narrowLongs), maxParallelism));
  }

  /**
   * An int that Spark's hash partitioning into `partitions` places on partition `subtask`:
   * pmod(Murmur3(code, 42), partitions) == subtask, the smallest non-negative such code.
   */
  public static int partitionCode(int subtask, int partitions) {
    if (subtask < 0 || subtask >= partitions) {
      throw new IllegalArgumentException("subtask " + subtask + " of " + partitions);
    }
    return CODES.computeIfAbsent(partitions, FlinkKeys::codes)[subtask];
  }

  private static int[] codes(int partitions) {
    int[] codes = new int[partitions];
    java.util.Arrays.fill(codes, -1);
    int missing = partitions;
    for (int code = 0; missing > 0; code++) {
      int partition = Math.floorMod(Murmur3_x86_32.hashInt(code, SPARK_HASH_SEED), partitions);
      if (codes[partition] < 0) {
        codes[partition] = code;
        missing--;
      }
    }
    return codes;
  }
}
