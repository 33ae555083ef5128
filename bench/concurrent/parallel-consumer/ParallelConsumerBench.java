// Confluent's Parallel Consumer runner of the concurrent-processing benchmark (bench/concurrent/run.ts):
// ParallelStreamProcessor.poll with KEY ordering and maxConcurrency N (its own pool of N
// threads), a handler that sleeps handlerMs per record, and the same tally as the Node runners
// (runner.ts's OrderTally): every offset once, per-key order, records/s from the first record.
//
//   java -cp <classes>:<pom.xml's classpath> ParallelConsumerBench '<ConcurrentConfig JSON>'
//
// The config's fields are read with a small pattern (numbers and plain strings only), so no JSON
// library is needed on the classpath.
import io.confluent.parallelconsumer.ParallelConsumerOptions;
import io.confluent.parallelconsumer.ParallelConsumerOptions.CommitMode;
import io.confluent.parallelconsumer.ParallelConsumerOptions.ProcessingOrder;
import io.confluent.parallelconsumer.ParallelStreamProcessor;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.StringDeserializer;

import java.lang.management.ManagementFactory;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

public class ParallelConsumerBench {
  static String field (String json, String name) {
    Matcher m = Pattern.compile("\"" + name + "\"\\s*:\\s*(\"([^\"]*)\"|([0-9.]+))").matcher(json);
    if (!m.find()) throw new IllegalArgumentException("config has no " + name + ": " + json);
    return m.group(2) != null ? m.group(2) : m.group(3);
  }

  static double cpuSeconds () {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime() / 1e9;
  }

  /** Per partition and key: the offset last started and whether it still runs (runner.ts's OrderTally). */
  static final class KeyState {
    long offset;
    boolean running;
  }

  static final Object lock = new Object();
  static final Map<String, KeyState> keys = new HashMap<>();
  static final Set<Long> seen = new HashSet<>();
  static int inFlight = 0;
  static int maxInFlight = 0;
  static long duplicates = 0;
  static long orderViolations = 0;
  static long firstAt = -1;
  static long doneAt = -1;

  public static void main (String[] args) throws Exception {
    String json = args[0];
    String bootstrap = field(json, "bootstrap");
    String topic = field(json, "topic");
    String groupId = field(json, "groupId");
    int records = Integer.parseInt(field(json, "records"));
    long handlerMs = Long.parseLong(field(json, "handlerMs"));
    int concurrency = Integer.parseInt(field(json, "concurrency"));
    CountDownLatch done = new CountDownLatch(1);

    long started = System.nanoTime();
    double cpuStart = cpuSeconds();
    Properties props = new Properties();
    props.put("bootstrap.servers", bootstrap);
    props.put("group.id", groupId);
    props.put("client.id", "bench-concurrent-parallel-consumer");
    props.put("enable.auto.commit", "false");
    props.put("auto.offset.reset", "earliest");
    props.put("key.deserializer", StringDeserializer.class.getName());
    props.put("value.deserializer", StringDeserializer.class.getName());
    KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props);
    ParallelConsumerOptions<String, String> options = ParallelConsumerOptions.<String, String>builder()
      .ordering(ProcessingOrder.KEY)
      .maxConcurrency(concurrency)
      .commitMode(CommitMode.PERIODIC_CONSUMER_ASYNCHRONOUS)
      .consumer(consumer)
      .build();
    ParallelStreamProcessor<String, String> processor = ParallelStreamProcessor.createEosStreamProcessor(options);
    processor.subscribe(List.of(topic));
    processor.poll(context -> {
      ConsumerRecord<String, String> record = context.getSingleConsumerRecord();
      String unit = record.partition() + "/" + record.key();
      KeyState state;
      synchronized (lock) {
        if (firstAt < 0) firstAt = System.nanoTime();
        KeyState last = keys.get(unit);
        if (last != null && (last.running || last.offset >= record.offset()) && last.offset != record.offset()) orderViolations++;
        state = new KeyState();
        state.offset = record.offset();
        state.running = true;
        keys.put(unit, state);
        maxInFlight = Math.max(maxInFlight, ++inFlight);
      }
      try {
        Thread.sleep(handlerMs);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      synchronized (lock) {
        state.running = false;
        inFlight--;
        long id = ((long) record.partition() << 40) | record.offset();
        if (!seen.add(id)) duplicates++;
        if (seen.size() == records && doneAt < 0) {
          doneAt = System.nanoTime();
          done.countDown();
        }
      }
    });
    done.await();
    double cpu = cpuSeconds() - cpuStart;
    processor.close();
    long end = doneAt;
    String settings = "Parallel Consumer 0.5.3.3 (kafka-clients 3.9.1): ParallelStreamProcessor.poll, ordering KEY, maxConcurrency " + concurrency
      + ", commitMode PERIODIC_CONSUMER_ASYNCHRONOUS, a handler thread sleeping " + handlerMs + " ms per record";
    String runtime = "Java " + System.getProperty("java.version");
    System.out.println("BENCH-RESULT {\"runtime\":\"" + runtime + "\",\"settings\":\"" + settings + "\",\"received\":" + seen.size()
      + ",\"duplicates\":" + duplicates + ",\"orderViolations\":" + orderViolations + ",\"maxInFlight\":" + maxInFlight
      + ",\"wallSeconds\":" + (end - started) / 1e9 + ",\"afterFirstSeconds\":" + (end - firstAt) / 1e9 + ",\"cpuSeconds\":" + cpu + "}");
    System.exit(0);
  }
}
