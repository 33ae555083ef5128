// The Java client's runner of the exactly-once benchmark (bench/eos/run.ts compiles it
// with javac against the Kafka jars and runs it). Arguments: mode (produce | ctp),
// bootstrap, output topic, records, records per transaction, value size, payload file,
// input topic, group id, transactional id, then client properties as key=value.
//
// produce: beginTransaction, send() each record of the transaction, commitTransaction.
// ctp: a KafkaConsumer (group.protocol=consumer, read_committed, max.poll.records = the
// transaction size); one transaction per poll: send() each record to the output,
// sendOffsetsToTransaction(next offsets, groupMetadata()), commitTransaction.
//
// Prints one line: BENCH-RESULT {json}. CPU is the JVM's process CPU time from before the
// clients are made to after they are closed (com.sun.management.OperatingSystemMXBean).
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

public class TxnBench {
  public static void main(String[] args) throws Exception {
    String mode = args[0];
    String bootstrap = args[1];
    String topic = args[2];
    long records = Long.parseLong(args[3]);
    int txnSize = Integer.parseInt(args[4]);
    int valueSize = Integer.parseInt(args[5]);
    String payloadFile = args[6];
    String inputTopic = args[7];
    String groupId = args[8];
    String transactionalId = args[9];
    Properties producerProps = new Properties();
    producerProps.put("bootstrap.servers", bootstrap);
    producerProps.put("transactional.id", transactionalId);
    producerProps.put("key.serializer", ByteArraySerializer.class.getName());
    producerProps.put("value.serializer", ByteArraySerializer.class.getName());
    Properties consumerProps = new Properties();
    consumerProps.put("bootstrap.servers", bootstrap);
    consumerProps.put("group.id", groupId);
    consumerProps.put("group.protocol", "consumer");
    consumerProps.put("isolation.level", "read_committed");
    consumerProps.put("enable.auto.commit", "false");
    consumerProps.put("auto.offset.reset", "earliest");
    consumerProps.put("max.poll.records", Integer.toString(txnSize));
    consumerProps.put("max.partition.fetch.bytes", Integer.toString(16 * 1024 * 1024));
    consumerProps.put("fetch.max.bytes", Integer.toString(64 * 1024 * 1024));
    consumerProps.put("key.deserializer", ByteArrayDeserializer.class.getName());
    consumerProps.put("value.deserializer", ByteArrayDeserializer.class.getName());
    for (int i = 10; i < args.length; i++) {
      String[] kv = args[i].split("=", 2);
      // consumer.* goes to the consumer, anything else to the producer.
      if (kv[0].startsWith("consumer.")) consumerProps.put(kv[0].substring("consumer.".length()), kv[1]);
      else producerProps.put(kv[0], kv[1]);
    }
    com.sun.management.OperatingSystemMXBean os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    long cpuStart = os.getProcessCpuTime();
    long committed = 0;
    long transactions = 0;
    AtomicReference<String> firstError = new AtomicReference<>();
    long started;
    long finished;
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(producerProps)) {
      if (mode.equals("produce")) {
        List<byte[]> values = readValues(payloadFile, valueSize);
        producer.initTransactions();
        producer.beginTransaction();
        started = System.nanoTime();
        int next = 0;
        while (committed < records) {
          long count = Math.min(txnSize, records - committed);
          if (transactions > 0) producer.beginTransaction();
          for (long i = 0; i < count; i++) {
            producer.send(new ProducerRecord<>(topic, values.get(next)), (metadata, error) -> { if (error != null) firstError.compareAndSet(null, error.toString()); });
            if (++next == values.size()) next = 0;
          }
          producer.commitTransaction();
          committed += count;
          transactions++;
        }
        finished = System.nanoTime();
      } else {
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(consumerProps)) {
          started = System.nanoTime();
          producer.initTransactions();
          consumer.subscribe(List.of(inputTopic));
          while (committed < records) {
            ConsumerRecords<byte[], byte[]> polled = consumer.poll(Duration.ofMillis(100));
            if (polled.isEmpty()) continue;
            producer.beginTransaction();
            Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
            for (ConsumerRecord<byte[], byte[]> r : polled) {
              producer.send(new ProducerRecord<>(topic, r.key(), r.value()), (metadata, error) -> { if (error != null) firstError.compareAndSet(null, error.toString()); });
              offsets.put(new TopicPartition(r.topic(), r.partition()), new OffsetAndMetadata(r.offset() + 1));
            }
            producer.sendOffsetsToTransaction(offsets, consumer.groupMetadata());
            producer.commitTransaction();
            committed += polled.count();
            transactions++;
          }
          finished = System.nanoTime();
        }
      }
    }
    double cpuSeconds = (os.getProcessCpuTime() - cpuStart) / 1e9;
    String error = firstError.get();
    System.out.println("BENCH-RESULT {\"wallSeconds\":" + ((finished - started) / 1e9) + ",\"committed\":" + committed + ",\"transactions\":" + transactions
      + ",\"aborted\":0,\"cpuSeconds\":" + cpuSeconds + ",\"runtime\":\"java " + System.getProperty("java.version") + ", kafka-clients 4.4.0\",\"settings\":\""
      + (mode.equals("produce") ? "send() per record, " + describe(producerProps) : "poll() → one transaction, " + describe(consumerProps) + "; producer " + describe(producerProps)) + "\""
      + (error == null ? "" : ",\"firstError\":\"" + error.replace("\"", "'") + "\"") + "}");
  }

  static String describe(Properties props) {
    List<String> parts = new ArrayList<>();
    for (String key : props.stringPropertyNames()) {
      if (key.endsWith("serializer") || key.equals("bootstrap.servers") || key.equals("transactional.id") || key.equals("group.id")) continue;
      parts.add(key + "=" + props.getProperty(key));
    }
    parts.sort(null);
    return String.join(" ", parts);
  }

  static List<byte[]> readValues(String file, int size) throws Exception {
    byte[] bytes = Files.readAllBytes(Paths.get(file));
    List<byte[]> values = new ArrayList<>();
    for (int start = 0; start + size <= bytes.length; start += size + 1) values.add(java.util.Arrays.copyOfRange(bytes, start, start + size));
    return values;
  }
}
