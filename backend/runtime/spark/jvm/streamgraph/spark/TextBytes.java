package streamgraph.spark;

import java.util.Arrays;
import org.apache.hadoop.io.Text;
import org.apache.spark.api.python.Converter;

/**
 * Hadoop's Text as the bytes it holds, for PySpark's Hadoop readers: PySpark's own conversion
 * decodes them into a Java String, which replaces invalid UTF-8 otherwise than Python does
 * (one U+FFFD for a whole malformed sequence where Python gives one per byte it cannot use),
 * so the runtime decodes them itself, as a file: location's source does.
 */
public final class TextBytes implements Converter<Object, Object> {
  @Override
  public Object convert(Object value) {
    Text text = (Text) value;
    return Arrays.copyOf(text.getBytes(), text.getLength());
  }
}
