package streamgraph.spark;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Python's {@code str.lower()} and {@code str.upper()}: full case mappings per code point
 * and, for lower, Python's final sigma rule, from the tables of the Python that runs the
 * executors ({@code python-case.txt}, written by runtime/spark/casetables.py when the jar is
 * built). Spark's own functions follow a newer Unicode and rewrite lower(upper(x)) as
 * lower(x), which is not the same text ("ß" -> "SS" -> "ss").
 */
public final class PythonCase {
  private PythonCase() {}

  private static final int SIGMA = 0x3a3;
  private static final String[] LOWER = new String[0x10000];
  private static final String[] UPPER = new String[0x10000];
  private static final Map<Integer, String> LOWER_ABOVE = new HashMap<>();
  private static final Map<Integer, String> UPPER_ABOVE = new HashMap<>();
  private static final int[][] CASED;
  private static final int[][] IGNORABLE;

  static {
    List<int[]> cased = new ArrayList<>();
    List<int[]> ignorable = new ArrayList<>();
    readTables(
        parts -> {
          int code = Integer.parseInt(parts[1], 16);
          switch (parts[0]) {
            case "L" -> put(LOWER, LOWER_ABOVE, code, text(parts));
            case "U" -> put(UPPER, UPPER_ABOVE, code, text(parts));
            case "C" -> cased.add(new int[] {code, Integer.parseInt(parts[2], 16)});
            case "I" -> ignorable.add(new int[] {code, Integer.parseInt(parts[2], 16)});
            case "D" -> {} // decimal digits: PythonInt's
            default -> throw new IllegalStateException("python-case.txt: " + String.join(" ", parts));
          }
        });
    CASED = cased.toArray(new int[0][]);
    IGNORABLE = ignorable.toArray(new int[0][]);
  }

  /** Every line of the tables (`casetables.py`), split at its spaces, comments skipped. */
  static void readTables(Consumer<String[]> each) {
    try (InputStream stream = PythonCase.class.getResourceAsStream("python-case.txt")) {
      if (stream == null) {
        throw new IllegalStateException("python-case.txt is missing from the jar");
      }
      BufferedReader reader =
          new BufferedReader(new InputStreamReader(stream, StandardCharsets.US_ASCII));
      for (String line = reader.readLine(); line != null; line = reader.readLine()) {
        if (!line.isEmpty() && line.charAt(0) != '#') {
          each.accept(line.split(" "));
        }
      }
    } catch (IOException error) {
      throw new UncheckedIOException(error);
    }
  }

  private static String text(String[] parts) {
    StringBuilder out = new StringBuilder();
    for (int i = 2; i < parts.length; i++) {
      out.appendCodePoint(Integer.parseInt(parts[i], 16));
    }
    return out.toString();
  }

  private static void put(String[] below, Map<Integer, String> above, int code, String text) {
    if (code < below.length) {
      below[code] = text;
    } else {
      above.put(code, text);
    }
  }

  private static String mapped(String[] below, Map<Integer, String> above, int code) {
    return code < below.length ? below[code] : above.get(code);
  }

  private static boolean in(int[][] ranges, int code) {
    int low = 0;
    int high = ranges.length - 1;
    while (low <= high) {
      int middle = (low + high) >>> 1;
      int[] range = ranges[middle];
      if (code < range[0]) {
        high = middle - 1;
      } else if (code > range[1]) {
        low = middle + 1;
      } else {
        return true;
      }
    }
    return false;
  }

  public static String lower(String text) {
    return convert(text, true);
  }

  public static String upper(String text) {
    return convert(text, false);
  }

  private static String convert(String text, boolean lower) {
    int length = text.length();
    int i = 0;
    while (i < length && text.charAt(i) < 0x80) {
      i++;
    }
    if (i == length) {
      return ascii(text, lower);
    }
    StringBuilder out = new StringBuilder(length + 8);
    for (i = 0; i < length; ) {
      int code = text.codePointAt(i);
      int next = i + Character.charCount(code);
      String to;
      if (lower && code == SIGMA) {
        to = finalSigma(text, i, next) ? "\u03c2" : "\u03c3";
      } else {
        to = lower ? mapped(LOWER, LOWER_ABOVE, code) : mapped(UPPER, UPPER_ABOVE, code);
      }
      if (to == null) {
        out.appendCodePoint(code);
      } else {
        out.append(to);
      }
      i = next;
    }
    return out.toString();
  }

  private static String ascii(String text, boolean lower) {
    char[] chars = null;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (lower ? c >= 'A' && c <= 'Z' : c >= 'a' && c <= 'z') {
        if (chars == null) {
          chars = text.toCharArray();
        }
        chars[i] = (char) (c ^ 0x20);
      }
    }
    return chars == null ? text : new String(chars);
  }

  /**
   * Python's rule: a capital sigma is final when a cased letter comes before it and none
   * after it, looking through case-ignorable ones both ways.
   */
  private static boolean finalSigma(String text, int at, int after) {
    int j = at;
    int code = -1;
    while (j > 0) {
      code = text.codePointBefore(j);
      if (!in(IGNORABLE, code)) {
        break;
      }
      j -= Character.charCount(code);
      code = -1;
    }
    if (code < 0 || !in(CASED, code)) {
      return false;
    }
    for (j = after; j < text.length(); j += Character.charCount(code)) {
      code = text.codePointAt(j);
      if (!in(IGNORABLE, code)) {
        return !in(CASED, code);
      }
    }
    return true;
  }
}
