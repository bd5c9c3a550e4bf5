import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.json.JsonConverter;
import org.apache.kafka.connect.storage.SimpleHeaderConverter;

/**
 * Writes Debezium outbox records the way a Kafka Connect worker does: the record Debezium's
 * outbox event router emits (key = the aggregateid column, a string; value = the payload column,
 * a string; headers `id` and `eventType`, with `table.fields.additional.placement=
 * type:header:eventType`) converted by Connect's own converters: JsonConverter for key and value
 * (schemas.enable true, Connect's default, or false), or for the key a registry converter
 * (Apicurio's Avro serializer, Confluent-compatible framing, as its AvroConverter writes it),
 * and headers by SimpleHeaderConverter (Connect's default header converter).
 *
 * <p>Arguments: brokers, the registry's v3 API URL, topic. Each stdin line: key converter
 * (`json-schemas`, `json-plain` or `avro`), value converter (`json-schemas` or `json-plain`),
 * aggregate ID, event ID, event type, payload JSON; each base64, tab-separated. Prints `sent N`
 * when every record is acknowledged.
 */
public class ConnectOutboxProducer {
  private static JsonConverter json(boolean schemas, boolean isKey) {
    JsonConverter c = new JsonConverter();
    Map<String, Object> conf = new HashMap<>();
    conf.put("schemas.enable", Boolean.toString(schemas));
    conf.put("converter.type", isKey ? "key" : "value");
    c.configure(conf, isKey);
    return c;
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  private static Serializer<Object> avroKeySerializer(String registry) throws Exception {
    Serializer s =
        (Serializer)
            Class.forName("io.apicurio.registry.serde.avro.AvroKafkaSerializer")
                .getDeclaredConstructor()
                .newInstance();
    Map<String, Object> conf = new HashMap<>();
    conf.put("apicurio.registry.url", registry);
    conf.put("apicurio.registry.auto-register", "true");
    conf.put("apicurio.registry.headers.enabled", "false");
    conf.put("apicurio.registry.id-handler", "io.apicurio.registry.serde.Default4ByteIdHandler");
    conf.put("apicurio.registry.use-id", "contentId");
    s.configure(conf, true);
    return s;
  }

  private static String text(String b64) {
    return new String(Base64.getDecoder().decode(b64), StandardCharsets.UTF_8);
  }

  public static void main(String[] args) throws Exception {
    String brokers = args[0], registry = args[1], topic = args[2];
    Properties props = new Properties();
    props.put("bootstrap.servers", brokers);
    props.put("acks", "all");
    props.put("key.serializer", ByteArraySerializer.class.getName());
    props.put("value.serializer", ByteArraySerializer.class.getName());
    SimpleHeaderConverter headerConverter = new SimpleHeaderConverter();
    headerConverter.configure(new HashMap<>());
    Serializer<Object> avroKeys = null;
    int sent = 0;
    BufferedReader in =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props)) {
      for (String line; (line = in.readLine()) != null; ) {
        if (line.isBlank()) continue;
        String[] f = line.split("\t", -1);
        String keyConverter = text(f[0]), valueConverter = text(f[1]);
        String aggregateId = text(f[2]), eventId = text(f[3]), eventType = text(f[4]);
        String payload = text(f[5]);
        byte[] key;
        if (keyConverter.equals("avro")) {
          if (avroKeys == null) avroKeys = avroKeySerializer(registry);
          key = avroKeys.serialize(topic, aggregateId);
        } else {
          key =
              json(keyConverter.equals("json-schemas"), true)
                  .fromConnectData(topic, Schema.STRING_SCHEMA, aggregateId);
        }
        byte[] value =
            json(valueConverter.equals("json-schemas"), false)
                .fromConnectData(topic, Schema.OPTIONAL_STRING_SCHEMA, payload);
        RecordHeaders headers = new RecordHeaders();
        headers.add(
            "id",
            headerConverter.fromConnectHeader(topic, "id", Schema.STRING_SCHEMA, eventId));
        headers.add(
            "eventType",
            headerConverter.fromConnectHeader(topic, "eventType", Schema.STRING_SCHEMA, eventType));
        producer.send(new ProducerRecord<>(topic, null, key, value, headers)).get();
        sent++;
      }
    }
    System.out.println("sent " + sent);
  }
}
