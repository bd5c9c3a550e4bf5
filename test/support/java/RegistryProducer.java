import com.google.protobuf.DescriptorProtos.DescriptorProto;
import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FileDescriptor;
import com.google.protobuf.DynamicMessage;
import com.google.protobuf.util.JsonFormat;
import com.squareup.wire.schema.Location;
import com.squareup.wire.schema.internal.parser.MessageElement;
import com.squareup.wire.schema.internal.parser.ProtoParser;
import io.apicurio.registry.utils.protobuf.schema.FileDescriptorUtils;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.io.DecoderFactory;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Writes records with Apicurio Registry's own Kafka serializers. By default in
 * Confluent-compatible mode: the 4-byte schema (content) ID after a zero byte in the value, no ID
 * headers, and for Protobuf Confluent's message indexes instead of Apicurio's type reference.
 * Schemas are registered by the serializer itself (auto-register) through Apicurio's v3 API.
 *
 * <p>Arguments: brokers, the registry's v3 API URL, topic, format (avro or protobuf), the schema
 * text in base64, then options: {@code ref:<import path>=<base64 .proto>} (a file the Protobuf
 * schema imports, repeatable), {@code headers=contentId|globalId} (Apicurio's header framing, its
 * 2.x default: the ID in a header, the payload alone, Protobuf with its type reference),
 * {@code register=latest} (use the subject's latest schema, registered beforehand, instead of
 * registering one), {@code message=<name>} (the Protobuf message to write; default the first),
 * {@code framing=defaults} (the serde's own 3.x defaults, none of the settings above).
 * Each stdin line is one record: key, headers (name=base64value;...), and the value as JSON
 * (Avro's JSON encoding, or Protobuf's), each field base64, tab-separated. Prints `sent N` when
 * every record is acknowledged.
 */
public class RegistryProducer {
  public static void main(String[] args) throws Exception {
    String brokers = args[0], registry = args[1], topic = args[2], format = args[3];
    String schemaText = new String(Base64.getDecoder().decode(args[4]), StandardCharsets.UTF_8);
    boolean avro = format.equals("avro");
    String headers = null;
    boolean serdeDefaults = false;
    String messageName = null;
    boolean latest = false;
    Map<String, String> imports = new HashMap<>();
    for (int i = 5; i < args.length; i++) {
      String[] kv = args[i].split("=", 2);
      if (kv[0].startsWith("ref:")) imports.put(kv[0].substring(4), decode(kv[1]));
      else if (kv[0].equals("headers")) headers = kv[1];
      else if (kv[0].equals("register")) latest = kv[1].equals("latest");
      else if (kv[0].equals("message")) messageName = kv[1];
      else if (kv[0].equals("framing")) serdeDefaults = kv[1].equals("defaults");
      else throw new IllegalArgumentException("unknown option " + args[i]);
    }
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
    props.put("apicurio.registry.auto-register", String.valueOf(!latest));
    props.put("apicurio.registry.find-latest", String.valueOf(latest));
    if (serdeDefaults) {
      // Apicurio 3.x's own defaults: the 4-byte content ID in the value, Protobuf's type ref.
    } else if (headers == null) {
      // Confluent-compatible: the ID in the value (not in headers), 4 bytes, the content ID that
      // the ccompat API serves; Protobuf with message indexes and without Apicurio's type ref.
      props.put("apicurio.registry.headers.enabled", "false");
      props.put("apicurio.registry.id-handler", "io.apicurio.registry.serde.Default4ByteIdHandler");
      props.put("apicurio.registry.use-id", "contentId");
      props.put("apicurio.registry.serde.send-type-ref", "false");
      props.put("apicurio.registry.serde.send-indexes", "true");
    } else {
      // Apicurio's own framing: the ID in apicurio.value.<headers>, Protobuf's type reference.
      props.put("apicurio.registry.headers.enabled", "true");
      props.put("apicurio.registry.use-id", headers);
    }

    Schema avroSchema = avro ? new Schema.Parser().parse(schemaText) : null;
    FileDescriptor file =
        avro ? null : fileOf("event.proto", schemaText, imports, new HashMap<>());
    Descriptor message =
        avro
            ? null
            : messageName != null
                ? file.findMessageTypeByName(messageName)
                : file.getMessageTypes().get(0);
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

  /**
   * The descriptor of one .proto file as protoc would build it: its own messages only, its
   * imports as files of their own (Apicurio's text loader also lists the messages of imported
   * files that share the package among the file's own, which is not what generated code has).
   * Imports are looked up in {@code imports} by file name, else among Google's well-known types.
   */
  private static FileDescriptor fileOf(
      String name, String text, Map<String, String> imports, Map<String, FileDescriptor> built)
      throws Exception {
    List<String> own = new ArrayList<>();
    for (var type : ProtoParser.Companion.parse(Location.get(name), text).getTypes())
      if (type instanceof MessageElement) own.add(type.getName());
    FileDescriptorProto loaded =
        FileDescriptorUtils.toFileDescriptorProto(text, name, Optional.empty(), imports);
    // The file's own messages, in its order (what Confluent's message indexes count).
    FileDescriptorProto.Builder proto = loaded.toBuilder().clearMessageType();
    for (String message : own)
      for (DescriptorProto m : loaded.getMessageTypeList())
        if (m.getName().equals(message)) proto.addMessageType(m);
    List<FileDescriptor> deps = new ArrayList<>();
    for (String dep : loaded.getDependencyList()) {
      FileDescriptor fd = built.get(dep);
      if (fd == null) {
        String simple = dep.substring(dep.lastIndexOf('/') + 1);
        String depText = imports.getOrDefault(dep, imports.get(simple));
        fd =
            depText != null
                ? fileOf(dep, depText, imports, built)
                : Arrays.stream(FileDescriptorUtils.baseDependencies())
                    .filter(f -> f.getName().equals(dep))
                    .findFirst()
                    .orElseThrow(() -> new IllegalArgumentException("no file for import " + dep));
        built.put(dep, fd);
      }
      deps.add(fd);
    }
    return FileDescriptor.buildFrom(proto.build(), deps.toArray(new FileDescriptor[0]));
  }

  private static String decode(String base64) {
    return new String(Base64.getDecoder().decode(base64), StandardCharsets.UTF_8);
  }
}
