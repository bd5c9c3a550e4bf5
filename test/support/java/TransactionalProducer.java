import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Kafka's own Java client writing transactionally, driven line by line from stdin (run with
 * `java -cp <kafka libs>/* TransactionalProducer.java <bootstrap servers>`; see
 * java-transactional-producer.ts). Each command is answered on stdout by `ok <command>`, or
 * `error <message>` after which the program exits 1.
 *
 *   open NAME TRANSACTIONAL_ID     a producer with that transactional.id (initTransactions)
 *   begin NAME                     beginTransaction
 *   send NAME TOPIC PARTITION KEY VALUE [HEADER=VALUE]...
 *                                  an asynchronous send; KEY, VALUE and each header value are
 *                                  base64, or `-` for null
 *   flush NAME                     waits for every send so far (fails if any failed)
 *   commit NAME | abort NAME       commitTransaction (flushes first) | abortTransaction
 *   close NAME
 */
public class TransactionalProducer {
  private static final Map<String, KafkaProducer<byte[], byte[]>> producers = new HashMap<>();
  private static final AtomicReference<Exception> sendFailure = new AtomicReference<>();

  private static byte[] bytes(String field) {
    return field.equals("-") ? null : Base64.getDecoder().decode(field);
  }

  private static KafkaProducer<byte[], byte[]> producer(String name) {
    KafkaProducer<byte[], byte[]> p = producers.get(name);
    if (p == null) throw new IllegalArgumentException("no producer " + name);
    return p;
  }

  private static void checkSends() throws Exception {
    Exception failure = sendFailure.getAndSet(null);
    if (failure != null) throw failure;
  }

  private static void run(String bootstrap, String[] cmd) throws Exception {
    switch (cmd[0]) {
      case "open": {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, cmd[2]);
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        KafkaProducer<byte[], byte[]> p = new KafkaProducer<>(props);
        p.initTransactions();
        producers.put(cmd[1], p);
        break;
      }
      case "begin":
        producer(cmd[1]).beginTransaction();
        break;
      case "send": {
        List<org.apache.kafka.common.header.Header> headers = new ArrayList<>();
        for (int i = 6; i < cmd.length; i++) {
          int eq = cmd[i].indexOf('=');
          headers.add(new RecordHeader(cmd[i].substring(0, eq), bytes(cmd[i].substring(eq + 1))));
        }
        ProducerRecord<byte[], byte[]> record =
            new ProducerRecord<>(
                cmd[2], Integer.valueOf(cmd[3]), bytes(cmd[4]), bytes(cmd[5]), headers);
        producer(cmd[1])
            .send(
                record,
                (metadata, err) -> {
                  if (err != null) sendFailure.compareAndSet(null, err);
                });
        break;
      }
      case "flush":
        producer(cmd[1]).flush();
        checkSends();
        break;
      case "commit":
        producer(cmd[1]).commitTransaction();
        checkSends();
        break;
      case "abort":
        producer(cmd[1]).abortTransaction();
        break;
      case "close":
        producer(cmd[1]).close();
        producers.remove(cmd[1]);
        break;
      default:
        throw new IllegalArgumentException("unknown command " + cmd[0]);
    }
  }

  public static void main(String[] args) throws Exception {
    BufferedReader in =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    String line;
    while ((line = in.readLine()) != null) {
      if (line.isBlank()) continue;
      String[] cmd = line.trim().split(" ");
      try {
        run(args[0], cmd);
        System.out.println("ok " + cmd[0]);
        System.out.flush();
      } catch (Exception e) {
        System.out.println("error " + cmd[0] + ": " + e);
        System.out.flush();
        System.exit(1);
      }
    }
    for (KafkaProducer<byte[], byte[]> p : producers.values()) p.close();
  }
}
