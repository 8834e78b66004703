package streamgraph.spark;

import org.apache.spark.sql.api.java.UDF1;

/** SQL `sg_upper(text)`: Python's `text.upper()` (PythonCase). */
public final class PythonUpper implements UDF1<String, String> {
  private static final long serialVersionUID = 1L;

  @Override
  public String call(String text) {
    return text == null ? null : PythonCase.upper(text);
  }
}
