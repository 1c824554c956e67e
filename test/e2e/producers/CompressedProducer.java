import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Future;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * A producer that is not kafkajs: Java's kafka-clients with its own codec libraries, as a JVM
 * service writes the input topic. Usage: java -cp <kafka jars> CompressedProducer.java BROKERS TOPIC FILE,
 * FILE holding lines "codec TAB partition TAB key TAB value". Each codec's lines go out
 * from a producer of their own as one compressed batch per partition (a long linger, a batch size
 * no test reaches, then a flush), and each record's "codec partition offset" is printed.
 */
public class CompressedProducer {
  public static void main(String[] args) throws Exception {
    if (args.length != 3) throw new IllegalArgumentException("usage: BROKERS TOPIC FILE");
    Map<String, List<String[]>> byCodec = new LinkedHashMap<>();
    for (String line : Files.readAllLines(Path.of(args[2]), StandardCharsets.UTF_8)) {
      if (line.isEmpty()) continue;
      String[] fields = line.split("\t", 4);
      byCodec.computeIfAbsent(fields[0], c -> new ArrayList<>()).add(fields);
    }
    for (Map.Entry<String, List<String[]>> entry : byCodec.entrySet()) {
      try (KafkaProducer<String, String> producer = new KafkaProducer<>(settings(args[0], entry.getKey()))) {
        List<Future<RecordMetadata>> sent = new ArrayList<>();
        for (String[] f : entry.getValue())
          sent.add(producer.send(new ProducerRecord<>(args[1], Integer.parseInt(f[1]), f[2], f[3])));
        producer.flush();
        for (Future<RecordMetadata> f : sent) {
          RecordMetadata m = f.get();
          System.out.println(entry.getKey() + " " + m.partition() + " " + m.offset());
        }
      }
    }
  }

  private static Properties settings(String brokers, String codec) {
    Properties props = new Properties();
    props.put("bootstrap.servers", brokers);
    props.put("compression.type", codec);
    props.put("acks", "all");
    props.put("enable.idempotence", "true");
    props.put("linger.ms", "60000");
    props.put("batch.size", Integer.toString(4 * 1024 * 1024));
    props.put("max.request.size", Integer.toString(4 * 1024 * 1024));
    props.put("key.serializer", StringSerializer.class.getName());
    props.put("value.serializer", StringSerializer.class.getName());
    return props;
  }
}
