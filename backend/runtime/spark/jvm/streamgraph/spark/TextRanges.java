package streamgraph.spark;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;
import org.apache.spark.util.SerializableConfiguration;

/**
 * The lines of text files as the runtime's text source splits them over its subtasks
 * (runtime.operators.sources.text_lines): per file, subtask i reads the lines whose first
 * byte lies in [size * i / p, size * (i + 1) / p), without line breaks (a trailing \r
 * dropped), decoded as UTF-8 (an invalid sequence as U+FFFD, as Python's "replace" does).
 * Partition i of the result is subtask i; each row is (subtask, text), built as Spark's
 * internal rows: valid UTF-8 goes into the row as read, never through a Java String. The
 * files may be on any scheme the context's Hadoop file systems reach.
 */
public final class TextRanges {
  private TextRanges() {}

  public static final StructType SCHEMA =
      new StructType()
          .add("subtask", DataTypes.IntegerType, false)
          .add("value", DataTypes.StringType, false);

  public static JavaRDD<InternalRow> read(
      JavaSparkContext context, String[] uris, int parallelism) {
    List<Integer> subtasks = new ArrayList<>();
    for (int i = 0; i < parallelism; i++) {
      subtasks.add(i);
    }
    String[] files = uris.clone();
    // The context's Hadoop settings (spark.hadoop.*, a cluster's file systems) travel with
    // the tasks: a Configuration made on an executor would know only its own files.
    SerializableConfiguration settings =
        new SerializableConfiguration(context.hadoopConfiguration());
    return context
        .parallelize(subtasks, parallelism)
        .mapPartitions(
            indexes -> {
              int subtask = indexes.next();
              return new Lines(files, subtask, parallelism, settings.value());
            });
  }

  public static Dataset<Row> frame(SparkSession spark, JavaRDD<InternalRow> rows) {
    return ((org.apache.spark.sql.classic.SparkSession) spark)
        .internalCreateDataFrame(rows.rdd(), SCHEMA, false);
  }

  /** The rows of one subtask, read lazily file after file. */
  static final class Lines implements Iterator<InternalRow> {
    private final String[] files;
    private final int subtask;
    private final int parallelism;
    private final Configuration conf;
    private final ByteArrayOutputStream pending = new ByteArrayOutputStream(256);
    private final byte[] block = new byte[1 << 16];
    private int blockStart;
    private int blockEnd;
    private int file = -1;
    private InputStream stream;
    private long position;
    private long end;
    private InternalRow next;

    Lines(String[] files, int subtask, int parallelism, Configuration conf) {
      this.files = files;
      this.conf = conf;
      this.subtask = subtask;
      this.parallelism = parallelism;
    }

    @Override
    public boolean hasNext() {
      if (next == null) {
        try {
          next = advance();
        } catch (IOException error) {
          throw new UncheckedIOException(error);
        }
      }
      return next != null;
    }

    @Override
    public InternalRow next() {
      if (!hasNext()) {
        throw new NoSuchElementException();
      }
      InternalRow row = next;
      next = null;
      return row;
    }

    private InternalRow advance() throws IOException {
      while (true) {
        if (stream != null && position < end) {
          UTF8String text = readLine();
          if (text != null) {
            return new GenericInternalRow(new Object[] {subtask, text});
          }
        }
        if (stream != null) {
          stream.close();
          stream = null;
        }
        if (!open()) {
          return null;
        }
      }
    }

    /** Opens the next file with bytes in this subtask's range; false after the last. */
    private boolean open() throws IOException {
      while (++file < files.length) {
        Path path = new Path(files[file]);
        FileSystem fs = path.getFileSystem(conf);
        long size = fs.getFileStatus(path).getLen();
        long start = size * subtask / parallelism;
        end = size * (subtask + 1) / parallelism;
        if (start >= end) {
          continue;
        }
        FSDataInputStream input = fs.open(path);
        stream = input;
        blockStart = blockEnd = 0;
        position = 0;
        if (start > 0) {
          // The line under `start` belongs to the range where it starts: skip to the next.
          input.seek(start - 1);
          position = start - 1;
          readLine();
        }
        return true;
      }
      return false;
    }

    /** The line starting at `position`, or null at the end of the file. */
    private UTF8String readLine() throws IOException {
      pending.reset();
      boolean any = false;
      while (true) {
        if (blockStart == blockEnd) {
          int read = stream.read(block, 0, block.length);
          if (read <= 0) {
            if (!any) {
              end = position; // end of the file
              return null;
            }
            return decode(pending.toByteArray(), pending.size());
          }
          blockStart = 0;
          blockEnd = read;
        }
        any = true;
        int from = blockStart;
        int stop = from;
        while (stop < blockEnd && block[stop] != '\n') {
          stop++;
        }
        if (stop < blockEnd) {
          position += stop - from + 1;
          blockStart = stop + 1;
          if (pending.size() == 0) {
            return decode(block, from, stop - from);
          }
          pending.write(block, from, stop - from);
          return decode(pending.toByteArray(), pending.size());
        }
        position += blockEnd - from;
        pending.write(block, from, blockEnd - from);
        blockStart = blockEnd;
      }
    }

    private static UTF8String decode(byte[] bytes, int length) {
      return decode(bytes, 0, length);
    }

    private static UTF8String decode(byte[] bytes, int offset, int length) {
      if (length > 0 && bytes[offset + length - 1] == '\r') {
        length--;
      }
      UTF8String text = UTF8String.fromBytes(Arrays.copyOfRange(bytes, offset, offset + length));
      if (text.isValid()) {
        return text;
      }
      return UTF8String.fromString(decodeReplacing(bytes, offset, length));
    }
  }

  /**
   * UTF-8 decoded as Python's {@code bytes.decode("utf-8", "replace")} does: each maximal
   * subpart of an ill-formed sequence (the longest start of a well-formed one, Unicode's
   * table 3-7) becomes one U+FFFD. Java's own decoder replaces some differently (an
   * encoded surrogate as one U+FFFD where Python gives three), which changes the text.
   */
  static String decodeReplacing(byte[] bytes, int offset, int length) {
    StringBuilder out = new StringBuilder(length);
    int end = offset + length;
    int i = offset;
    while (i < end) {
      int lead = bytes[i] & 0xff;
      if (lead < 0x80) {
        out.append((char) lead);
        i++;
        continue;
      }
      int following;
      int low = 0x80;
      int high = 0xbf;
      int codePoint;
      if (lead >= 0xc2 && lead <= 0xdf) {
        following = 1;
        codePoint = lead & 0x1f;
      } else if (lead >= 0xe0 && lead <= 0xef) {
        following = 2;
        codePoint = lead & 0x0f;
        low = lead == 0xe0 ? 0xa0 : 0x80; // no overlong forms
        high = lead == 0xed ? 0x9f : 0xbf; // no surrogates
      } else if (lead >= 0xf0 && lead <= 0xf4) {
        following = 3;
        codePoint = lead & 0x07;
        low = lead == 0xf0 ? 0x90 : 0x80; // no overlong forms
        high = lead == 0xf4 ? 0x8f : 0xbf; // nothing above U+10FFFF
      } else {
        out.append('\ufffd');
        i++;
        continue;
      }
      int j = i + 1;
      boolean complete = true;
      for (int k = 0; k < following; k++, j++) {
        int next = j < end ? bytes[j] & 0xff : -1;
        if (next < (k == 0 ? low : 0x80) || next > (k == 0 ? high : 0xbf)) {
          complete = false;
          break;
        }
        codePoint = (codePoint << 6) | (next & 0x3f);
      }
      if (complete) {
        out.appendCodePoint(codePoint);
      } else {
        out.append('\ufffd');
      }
      i = j;
    }
    return out.toString();
  }
}
