package streamgraph.spark;

import java.util.HashMap;
import java.util.Map;
import org.apache.spark.sql.api.java.UDF2;

/**
 * SQL `sg_int(text, where)`: Python's `int(text)`, base 10. Python first turns every non-ASCII
 * character into a space (when `str.isspace`) or an ASCII digit (when it has a decimal
 * value, from the tables of the Python that runs the executors: `D` lines of
 * {@code python-case.txt}), and any other into an invalid one; then it reads ASCII
 * whitespace, a sign, digits with single underscores between them, and ASCII whitespace.
 *
 * <p>Text Python refuses fails the query with Python's words, after `where` (the operator).
 * Text that Python reads as an int beyond 64 bits fails it too (Python would go on with a
 * big int), as an overflow of the SQL path's arithmetic does.
 */
public final class PythonInt implements UDF2<String, String, Long> {
  private static final long serialVersionUID = 1L;

  private static final Map<Integer, Integer> DECIMAL = new HashMap<>();

  static {
    PythonCase.readTables(
        parts -> {
          if (parts[0].equals("D")) {
            DECIMAL.put(Integer.parseInt(parts[1], 16), Integer.parseInt(parts[2]));
          }
        });
  }

  /** The int `text` holds as Python reads it, or null when Python raises ValueError. */
  public static Long parse(String text) {
    int length = text.length();
    int i = skipSpaces(text, 0);
    boolean negative = false;
    if (i < length && (text.charAt(i) == '+' || text.charAt(i) == '-')) {
      negative = text.charAt(i) == '-';
      i++;
    }
    long value = 0; // negated while read, so that Long.MIN_VALUE fits
    boolean digits = false;
    boolean underscore = false;
    boolean overflow = false;
    while (i < length) {
      int code = text.codePointAt(i);
      int digit = digit(code);
      if (digit >= 0) {
        if (!overflow) {
          try {
            value = Math.subtractExact(Math.multiplyExact(value, 10L), digit);
          } catch (ArithmeticException beyond) {
            overflow = true;
          }
        }
        digits = true;
        underscore = false;
      } else if (code == '_') {
        if (!digits || underscore) {
          return null;
        }
        underscore = true;
      } else {
        break;
      }
      i += Character.charCount(code);
    }
    if (!digits || underscore || skipSpaces(text, i) != length) {
      return null;
    }
    if (!negative && value == Long.MIN_VALUE) {
      overflow = true;
    }
    if (overflow) {
      throw new ArithmeticException(
          "int() of " + PythonRepr.of(text) + " is beyond 64 bits, which Spark SQL cannot hold");
    }
    return negative ? value : -value;
  }

  private static int digit(int code) {
    if (code < 128) {
      return code >= '0' && code <= '9' ? code - '0' : -1;
    }
    Integer value = DECIMAL.get(code);
    return value == null ? -1 : value;
  }

  /** Past the spaces Python's int() skips: ASCII's, and every non-ASCII `str.isspace`. */
  private static int skipSpaces(String text, int from) {
    int i = from;
    while (i < text.length()) {
      char c = text.charAt(i);
      boolean space =
          c < 128
              ? c == ' ' || (c >= '\t' && c <= '\r')
              : PythonSplit.isSpace(c);
      if (!space) {
        break;
      }
      i++;
    }
    return i;
  }

  @Override
  public Long call(String text, String where) {
    if (text == null) {
      return null;
    }
    Long value = parse(text);
    if (value == null) {
      throw new ExpressionError(
          where, "ValueError: invalid literal for int() with base 10: " + PythonRepr.of(text));
    }
    return value;
  }
}
