// The Java client's runner of the partition-scaling benchmark (bench/partitions/run.ts
// compiles it with javac against the Kafka jars and runs it; runner.ts says what a run
// does). Arguments: bootstrap, a file of topic names (one a line), partitions per topic,
// records, value size, linger ms, stall seconds, then client properties as key=value
// (consumer.key=value for the consumer).
//
// A KafkaProducer (acks=all, idempotent, linger.ms as given) sends the keyed records with
// send(record, callback); then a KafkaConsumer assign()s every partition, seekToBeginning,
// and poll()s them back. Prints one line: BENCH-RESULT {json}. CPU is the JVM's process
// CPU time over each phase; the heap is total − free after System.gc().
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

public class PartitionBench {
  static long procStatusBytes(String field) {
    try {
      String status = new String(Files.readAllBytes(Paths.get("/proc/self/status")), StandardCharsets.UTF_8);
      Matcher match = Pattern.compile("(?m)^" + field + ":\\s+(\\d+) kB").matcher(status);
      return match.find() ? Long.parseLong(match.group(1)) * 1024 : 0;
    } catch (Exception e) {
      return 0;
    }
  }

  static long heapAfterGc() {
    System.gc();
    System.gc();
    Runtime runtime = Runtime.getRuntime();
    return runtime.totalMemory() - runtime.freeMemory();
  }

  static String phase(long records, long started, long first, long last, double cpuSeconds) {
    return "{\"records\":" + records
        + ",\"seconds\":" + ((last == 0 ? System.nanoTime() : last) - started) / 1e9
        + ",\"firstRecordSeconds\":" + (first == 0 ? "null" : Double.toString((first - started) / 1e9))
        + ",\"cpuSeconds\":" + cpuSeconds + "}";
  }

  static String quote(String text) {
    return "\"" + text.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
  }

  public static void main(String[] args) throws Exception {
    String bootstrap = args[0];
    List<String> topics = new ArrayList<>();
    for (String line : Files.readAllLines(Paths.get(args[1]))) if (!line.isEmpty()) topics.add(line);
    int partitions = Integer.parseInt(args[2]);
    int records = Integer.parseInt(args[3]);
    int valueSize = Integer.parseInt(args[4]);
    String lingerMs = args[5];
    double stallSeconds = Double.parseDouble(args[6]);

    Properties producerProps = new Properties();
    producerProps.put("bootstrap.servers", bootstrap);
    producerProps.put("client.id", "bench-java-partitions-producer");
    producerProps.put("acks", "all");
    producerProps.put("enable.idempotence", "true");
    producerProps.put("linger.ms", lingerMs);
    producerProps.put("key.serializer", ByteArraySerializer.class.getName());
    producerProps.put("value.serializer", ByteArraySerializer.class.getName());
    Properties consumerProps = new Properties();
    consumerProps.put("bootstrap.servers", bootstrap);
    consumerProps.put("client.id", "bench-java-partitions-consumer");
    consumerProps.put("enable.auto.commit", "false");
    consumerProps.put("key.deserializer", ByteArrayDeserializer.class.getName());
    consumerProps.put("value.deserializer", ByteArrayDeserializer.class.getName());
    for (int i = 7; i < args.length; i++) {
      String[] kv = args[i].split("=", 2);
      if (kv[0].startsWith("consumer.")) consumerProps.put(kv[0].substring("consumer.".length()), kv[1]);
      else producerProps.put(kv[0], kv[1]);
    }
    StringBuilder shown = new StringBuilder();
    for (String key : new String[] {"acks", "enable.idempotence", "linger.ms"}) shown.append(key).append('=').append(producerProps.get(key)).append(' ');

    byte[] value = new byte[valueSize];
    java.util.Arrays.fill(value, (byte) 'K');
    byte[][] keys = new byte[records][];
    for (int i = 0; i < records; i++) keys[i] = ("key-" + i).getBytes(StandardCharsets.UTF_8);
    long baselineHeap = heapAfterGc();
    long baselineRss = procStatusBytes("VmRSS");
    List<String> problems = new ArrayList<>();
    com.sun.management.OperatingSystemMXBean os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

    // Produce.
    long cpuStart = os.getProcessCpuTime();
    long started = System.nanoTime();
    KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(producerProps);
    AtomicLong acknowledged = new AtomicLong();
    AtomicLong failed = new AtomicLong();
    AtomicLong firstAck = new AtomicLong();
    AtomicLong lastAck = new AtomicLong();
    AtomicReference<String> firstError = new AtomicReference<>();
    CountDownLatch settled = new CountDownLatch(records);
    for (int i = 0; i < records; i++) {
      producer.send(new ProducerRecord<>(topics.get(i % topics.size()), keys[i], value), (metadata, error) -> {
        if (error == null) {
          acknowledged.incrementAndGet();
          long now = System.nanoTime();
          firstAck.compareAndSet(0, now);
          lastAck.set(now);
        } else {
          failed.incrementAndGet();
          firstError.compareAndSet(null, error.toString());
        }
        settled.countDown();
      });
    }
    settled.await();
    String produce = phase(acknowledged.get(), started, firstAck.get(), lastAck.get(), (os.getProcessCpuTime() - cpuStart) / 1e9);

    // Consume.
    cpuStart = os.getProcessCpuTime();
    started = System.nanoTime();
    KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(consumerProps);
    List<TopicPartition> assigned = new ArrayList<>();
    for (String topic : topics) for (int p = 0; p < partitions; p++) assigned.add(new TopicPartition(topic, p));
    consumer.assign(assigned);
    consumer.seekToBeginning(assigned);
    long received = 0;
    long firstRecord = 0;
    long lastRecord = 0;
    long lastProgress = System.nanoTime();
    while (received < records) {
      ConsumerRecords<byte[], byte[]> polled = consumer.poll(Duration.ofMillis(500));
      long now = System.nanoTime();
      if (polled.count() > 0) {
        if (firstRecord == 0) firstRecord = now;
        lastRecord = lastProgress = now;
        received += polled.count();
      } else if (now - lastProgress > stallSeconds * 1e9) {
        problems.add("stalled: nothing new for " + (long) stallSeconds + " s after " + received + " records");
        break;
      }
    }
    String consume = phase(received, started, firstRecord, lastRecord, (os.getProcessCpuTime() - cpuStart) / 1e9);
    if (received != records) problems.add(received + " records received, not " + records);
    if (acknowledged.get() != records) problems.add(acknowledged.get() + " records acknowledged, not " + records);

    String memory = "{\"baselineRss\":" + baselineRss + ",\"baselineHeap\":" + baselineHeap
        + ",\"heap\":" + heapAfterGc() + ",\"rss\":" + procStatusBytes("VmRSS") + ",\"peakRss\":" + procStatusBytes("VmHWM") + "}";
    consumer.close();
    producer.close();

    StringBuilder problemList = new StringBuilder("[");
    for (int i = 0; i < problems.size(); i++) problemList.append(i == 0 ? "" : ",").append(quote(problems.get(i)));
    problemList.append(']');
    String error = firstError.get();
    System.out.println("BENCH-RESULT {"
        + "\"produce\":" + produce
        + ",\"consume\":" + consume
        + ",\"memory\":" + memory
        + ",\"failed\":" + failed.get()
        + ",\"problems\":" + problemList
        + ",\"settings\":" + quote("KafkaProducer.send(record, callback) (" + shown.toString().trim() + "); a KafkaConsumer assign() every partition + seekToBeginning, poll(500 ms) (other settings: the clients' defaults)")
        + ",\"runtime\":" + quote("java " + System.getProperty("java.version") + ", kafka-clients " + org.apache.kafka.common.utils.internals.AppInfoParser.getVersion())
        + (error == null ? "" : ",\"firstError\":" + quote(error))
        + "}");
  }
}
