package streamgraph.spark;

import org.apache.spark.sql.api.java.UDF1;

/** SQL `sg_lower(text)`: Python's `text.lower()` (PythonCase). */
public final class PythonLower implements UDF1<String, String> {
  private static final long serialVersionUID = 1L;

  @Override
  public String call(String text) {
    return text == null ? null : PythonCase.lower(text);
  }
}
