import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.Future;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Writes group chat messages straight to memstream's input topic with Kafka's Java client, then
 * asks memstream's API until each one is stored. Needs kafka-clients and jackson-databind:
 *
 *   java -cp 'jars/*' Produce.java BROKERS TOPIC_PREFIX API_BASE [GROUP_ID] [COUNT]
 *
 * Prints one line per message: "event_id partition offset sequence". See "For producer authors"
 * in docs/kafka-topics.md for why each setting is what it is.
 */
public class Produce {
  static final ObjectMapper JSON = new ObjectMapper();
  static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

  public static void main(String[] args) throws Exception {
    String brokers = args[0], prefix = args[1], apiBase = args[2];
    String groupId = args.length > 3 ? args[3] : "example-group";
    int count = args.length > 4 ? Integer.parseInt(args[4]) : 3;
    Properties settings = new Properties();
    settings.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, brokers);
    // No duplicates and no reordering when the client retries a send (the defaults since Kafka
    // 3.0, spelled out so a copied config keeps them).
    settings.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    settings.put(ProducerConfig.ACKS_CONFIG, "all");
    settings.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
    // No partitioner setting: for a keyed record the Java client hashes the key with murmur2, as
    // memstream's gateway does, so both put a group on the same partition.
    List<String> ids = new ArrayList<>();
    Map<String, Future<RecordMetadata>> sent = new LinkedHashMap<>();
    try (KafkaProducer<String, String> producer =
        new KafkaProducer<>(settings, new StringSerializer(), new StringSerializer())) {
      for (int i = 0; i < count; i++) {
        String eventId = UUID.randomUUID().toString(); // the idempotency key: a retry keeps it
        // RFC 3339 with a zone, as occurred_at requires.
        String now = OffsetDateTime.now(ZoneOffset.UTC).toString();
        Map<String, Object> data = new LinkedHashMap<>(); // exactly the body of POST /api/v1/memories
        data.put("group_id", groupId);
        data.put("message_id", groupId + "-" + i);
        data.put("create_time", now);
        data.put("sender", "example-bot");
        data.put("content", "message " + i + " from kafka-clients");
        Map<String, Object> envelope = new LinkedHashMap<>();
        envelope.put("id", eventId);
        envelope.put("type", "group_chat.message.received");
        envelope.put("occurred_at", now);
        envelope.put("data", data);
        // The key is the group: one group, one partition, stored in the order produced.
        String topic = prefix + "ingest.group-chat.v1";
        sent.put(eventId, producer.send(new ProducerRecord<>(topic, groupId, JSON.writeValueAsString(envelope))));
        ids.add(eventId);
      }
      producer.flush();
    }
    for (String eventId : ids) {
      RecordMetadata where = sent.get(eventId).get(); // throws if the record was not delivered
      System.out.println(eventId + " " + where.partition() + " " + where.offset() + " " + waitUntilStored(apiBase, eventId));
    }
  }

  /** The record's sequence in its conversation, once the converter has stored it. */
  static long waitUntilStored(String apiBase, String eventId) throws Exception {
    HttpRequest request = HttpRequest.newBuilder(URI.create(apiBase + "/api/v1/stats/request?request_id=" + eventId))
        .timeout(Duration.ofSeconds(10))
        .build();
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (System.nanoTime() < deadline) {
      HttpResponse<String> answer = HTTP.send(request, HttpResponse.BodyHandlers.ofString());
      if (answer.statusCode() == 200) {
        JsonNode result = JSON.readTree(answer.body()).get("result");
        String status = result.get("status").asText();
        if (status.equals("stored") || status.equals("extracted")) return result.get("sequence").asLong();
        if (status.equals("failed")) throw new IllegalStateException(eventId + " was refused: " + result.get("error"));
      } else if (answer.statusCode() != 404) { // 404: the converter has not reached the record yet
        throw new IllegalStateException(eventId + ": status " + answer.statusCode() + " " + answer.body());
      }
      Thread.sleep(200);
    }
    throw new IllegalStateException(eventId + " was not stored within 60 s");
  }
}
