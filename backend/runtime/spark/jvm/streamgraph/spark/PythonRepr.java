package streamgraph.spark;

/** Text quoted as Python's `repr` quotes it in an error message, cut to 200 characters. */
final class PythonRepr {
  private PythonRepr() {}

  static String of(String text) {
    String shown = text.length() > 200 ? text.substring(0, 200) : text;
    char quote = shown.indexOf('\'') >= 0 && shown.indexOf('"') < 0 ? '"' : '\'';
    StringBuilder out = new StringBuilder(shown.length() + 2).append(quote);
    for (int i = 0; i < shown.length(); i++) {
      char c = shown.charAt(i);
      if (c == quote || c == '\\') {
        out.append('\\').append(c);
      } else if (c == '\n') {
        out.append("\\n");
      } else if (c == '\r') {
        out.append("\\r");
      } else if (c == '\t') {
        out.append("\\t");
      } else if (c < 0x20 || c == 0x7f) {
        out.append(String.format("\\x%02x", (int) c));
      } else {
        out.append(c);
      }
    }
    return out.append(quote).toString();
  }
}
