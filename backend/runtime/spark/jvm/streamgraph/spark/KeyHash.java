package streamgraph.spark;

import org.apache.spark.sql.api.java.UDF2;

/** SQL `key_hash(key, narrowLongs)`: the key's Java hashCode (FlinkKeys.hashCode). */
public final class KeyHash implements UDF2<Object, Boolean, Integer> {
  private static final long serialVersionUID = 1L;

  @Override
  public Integer call(Object key, Boolean narrowLongs) {
    return FlinkKeys.hashCode(key, narrowLongs);
  }
}
