package streamgraph.spark;

import java.util.ArrayList;
import org.apache.spark.sql.api.java.UDF1;

/**
 * SQL `sg_split(text)`: Python's `text.split()`, the words between runs of Python's
 * whitespace (`str.isspace`), no empty words, in one pass without regular expressions.
 */
public final class PythonSplit implements UDF1<String, String[]> {
  private static final long serialVersionUID = 1L;

  private static final String[] NONE = new String[0];

  /** Python's whitespace: every character `str.isspace` accepts (all in the BMP). */
  public static boolean isSpace(char c) {
    if (c <= ' ') {
      return c == ' ' || (c >= '\t' && c <= '\r') || (c >= '\u001c' && c <= '\u001f');
    }
    if (c < '\u0085') {
      return false;
    }
    return c == '\u0085'
        || c == '\u00a0'
        || c == '\u1680'
        || (c >= '\u2000' && c <= '\u200a')
        || c == '\u2028'
        || c == '\u2029'
        || c == '\u202f'
        || c == '\u205f'
        || c == '\u3000';
  }

  @Override
  public String[] call(String text) {
    if (text == null) {
      return null;
    }
    ArrayList<String> words = null;
    int length = text.length();
    int start = -1;
    for (int i = 0; i <= length; i++) {
      boolean space = i == length || isSpace(text.charAt(i));
      if (space) {
        if (start >= 0) {
          if (words == null) {
            words = new ArrayList<>();
          }
          words.add(text.substring(start, i));
          start = -1;
        }
      } else if (start < 0) {
        start = i;
      }
    }
    return words == null ? NONE : words.toArray(NONE);
  }
}
