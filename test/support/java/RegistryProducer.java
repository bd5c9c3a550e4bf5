import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.DynamicMessage;
import com.google.protobuf.util.JsonFormat;
import io.apicurio.registry.utils.protobuf.schema.FileDescriptorUtils;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Optional;
import java.util.Properties;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.io.DecoderFactory;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Writes records with Apicurio Registry's own Kafka serializers in Confluent-compatible mode: the
 * 4-byte schema (content) ID after a zero byte in the value, no ID headers, and for Protobuf
 * Confluent's message indexes instead of Apicurio's type reference. Schemas are registered by the
 * serializer itself (auto-register) through Apicurio's v3 API.
 *
 * <p>Arguments: brokers, the registry's v3 API URL, topic, format (avro or protobuf), the schema
 * text in base64. Each stdin line is one record: key, headers (name=base64value;...), and the
 * value as JSON (Avro's JSON encoding, or Protobuf's), each field base64, tab-separated. Prints
 * `sent N` when every record is acknowledged.
 */
public class RegistryProducer {
  public static void main(String[] args) throws Exception {
    String brokers = args[0], registry = args[1], topic = args[2], format = args[3];
    String schemaText = new String(Base64.getDecoder().decode(args[4]), StandardCharsets.UTF_8);
    boolean avro = format.equals("avro");
    Properties props = new Properties();
    props.put("bootstrap.servers", brokers);
    props.put("acks", "all");
    props.put("key.serializer", StringSerializer.class.getName());
    props.put(
        "value.serializer",
        avro
            ? "io.apicurio.registry.serde.avro.AvroKafkaSerializer"
            : "io.apicurio.registry.serde.protobuf.ProtobufKafkaSerializer");
    props.put("apicurio.registry.url", registry);
    props.put("apicurio.registry.auto-register", "true");
    // Confluent-compatible: the ID in the value (not in headers), 4 bytes, the content ID that
    // the ccompat API serves; Protobuf with message indexes and without Apicurio's type ref.
    props.put("apicurio.registry.headers.enabled", "false");
    props.put("apicurio.registry.id-handler", "io.apicurio.registry.serde.Default4ByteIdHandler");
    props.put("apicurio.registry.use-id", "contentId");
    props.put("apicurio.registry.serde.send-type-ref", "false");
    props.put("apicurio.registry.serde.send-indexes", "true");

    Schema avroSchema = avro ? new Schema.Parser().parse(schemaText) : null;
    Descriptor message =
        avro
            ? null
            : FileDescriptorUtils.protoFileToFileDescriptor(schemaText, "event.proto", Optional.empty())
                .getMessageTypes()
                .get(0);
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    int sent = 0;
    try (KafkaProducer<String, Object> producer = new KafkaProducer<>(props)) {
      for (String line; (line = in.readLine()) != null; ) {
        if (line.isEmpty()) continue;
        String[] fields = line.split("\t", -1);
        String key = decode(fields[0]);
        String json = decode(fields[2]);
        Object value;
        if (avro) {
          value =
              new GenericDatumReader<Object>(avroSchema)
                  .read(null, DecoderFactory.get().jsonDecoder(avroSchema, json));
        } else {
          DynamicMessage.Builder builder = DynamicMessage.newBuilder(message);
          JsonFormat.parser().merge(json, builder);
          value = builder.build();
        }
        ProducerRecord<String, Object> record = new ProducerRecord<>(topic, key, value);
        if (!fields[1].isEmpty()) {
          for (String header : fields[1].split(";")) {
            String[] nv = header.split("=", 2);
            record.headers().add(nv[0], Base64.getDecoder().decode(nv[1]));
          }
        }
        producer.send(record).get();
        sent++;
      }
    }
    System.out.println("sent " + sent);
  }

  private static String decode(String base64) {
    return new String(Base64.getDecoder().decode(base64), StandardCharsets.UTF_8);
  }
}
