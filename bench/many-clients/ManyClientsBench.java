// The Java client's runner of the many-clients benchmark (bench/many-clients/run.ts
// compiles it with javac against the Kafka jars and runs it): the timeline and result of
// runner.ts in Java. Arguments: bootstrap, topic, producers, consumers, group id, value
// size, burst, idle seconds, bound seconds, then consumer properties as key=value.
//
// Every producer is a KafkaProducer and every consumer a KafkaConsumer of its own, with
// the client's defaults; each consumer is alone in its own group, reads the topic from the
// start (auto.offset.reset=earliest) and polls on a thread of its own (a KafkaConsumer is
// not thread-safe). Node's resources keeping the process alive have no JVM counterpart:
// the runner reports its live threads (ThreadMXBean) and OS threads instead; the heap is
// total - free after System.gc(), CPU the process's (OperatingSystemMXBean).
//
// Prints one line: BENCH-RESULT {json}.
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

public class ManyClientsBench {
  /** runner.ts's SETTLE_MS: the rest before each snapshot. */
  static final long SETTLE_MS = 2000;
  /** How long a consumer's poll() waits for records: its thread wakes this often at most when idle. */
  static final Duration POLL = Duration.ofSeconds(1);

  static final List<String> problems = new ArrayList<>();

  static synchronized void problem(String text) { if (problems.size() < 5) problems.add(text); }

  static String json(String text) { return "\"" + text.replace("\\", "\\\\").replace("\"", "\\\"") + "\""; }

  /** runner.ts's Receipts: what each consumer received; every method under the object's lock. */
  static class Receipts {
    final long[] counts;

    Receipts(int consumers) { counts = new long[consumers]; }

    synchronized void received(int consumer, int records) {
      counts[consumer] += records;
      notifyAll();
    }

    synchronized boolean until(long perConsumer, long boundMs) throws InterruptedException {
      long deadline = System.currentTimeMillis() + boundMs;
      while (true) {
        boolean done = true;
        for (long n : counts) done = done && n >= perConsumer;
        if (done) return true;
        long left = deadline - System.currentTimeMillis();
        if (left <= 0) return false;
        wait(left);
      }
    }

    synchronized String text() {
      StringBuilder text = new StringBuilder();
      for (long n : counts) text.append(text.length() == 0 ? "" : ",").append(n);
      return text.toString();
    }
  }

  /** A /proc/self/status figure (VmRSS in kB, Threads), or 0. */
  static long procStatus(String field) {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
        if (line.startsWith(field + ":")) return Long.parseLong(line.substring(field.length() + 1).trim().split("\\s+")[0]);
      }
    } catch (Exception e) {}
    return 0;
  }

  /** Open socket descriptors, as runner.ts counts them. */
  static int openSockets() {
    int sockets = 0;
    try (var fds = Files.list(Path.of("/proc/self/fd"))) {
      for (Path fd : (Iterable<Path>) fds::iterator) {
        try { if (Files.readSymbolicLink(fd).toString().startsWith("socket:")) sockets++; } catch (Exception e) {}
      }
    } catch (Exception e) {}
    return sockets;
  }

  /**
   * runner.ts's ProcessSnapshot with the JVM's figures: heap used = total - free after
   * System.gc() (twice, so what the first freed for finalization goes too), heap total the
   * committed heap; "resources" the live Java threads and the OS threads (JIT and GC threads
   * included). Node's external and array-buffer figures are left out.
   */
  static String processSnapshot() {
    System.gc();
    System.gc();
    Runtime runtime = Runtime.getRuntime();
    long total = runtime.totalMemory();
    return "\"rssBytes\":" + procStatus("VmRSS") * 1024 + ",\"heapUsedBytes\":" + (total - runtime.freeMemory()) + ",\"heapTotalBytes\":" + total
      + ",\"resources\":{\"threads\":" + ManagementFactory.getThreadMXBean().getThreadCount() + ",\"OS threads\":" + procStatus("Threads") + "}"
      + ",\"sockets\":" + openSockets();
  }

  static long processCpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
  }

  /** runner.ts's idleSnapshot: after SETTLE_MS the snapshot, then the process's CPU over the idle window (no event loop here). */
  static String idleSnapshot(String phase, double idleSeconds) throws InterruptedException {
    Thread.sleep(SETTLE_MS);
    String snapshot = processSnapshot();
    long cpuFrom = processCpuNanos();
    long from = System.nanoTime();
    Thread.sleep((long) (idleSeconds * 1000));
    double percent = (double) (processCpuNanos() - cpuFrom) / (System.nanoTime() - from) * 100;
    return "{\"phase\":" + json(phase) + "," + snapshot + ",\"idleCpuPercent\":" + percent + "}";
  }

  /** One consumer: its thread, polling until told to close. */
  static class Consumer {
    volatile KafkaConsumer<byte[], byte[]> consumer;
    volatile boolean closing = false;
    final CountDownLatch closed = new CountDownLatch(1);
  }

  public static void main(String[] args) throws Exception {
    String bootstrap = args[0];
    String topic = args[1];
    int producerCount = Integer.parseInt(args[2]);
    int consumerCount = Integer.parseInt(args[3]);
    String groupId = args[4];
    byte[] value = "x".repeat(Integer.parseInt(args[5])).getBytes();
    int burst = Integer.parseInt(args[6]);
    double idleSeconds = Double.parseDouble(args[7]);
    long boundMs = (long) (Double.parseDouble(args[8]) * 1000);
    Properties consumerProps = new Properties();
    consumerProps.put("bootstrap.servers", bootstrap);
    consumerProps.put("auto.offset.reset", "earliest");
    consumerProps.put("key.deserializer", ByteArrayDeserializer.class.getName());
    consumerProps.put("value.deserializer", ByteArrayDeserializer.class.getName());
    for (int i = 9; i < args.length; i++) {
      String[] kv = args[i].split("=", 2);
      consumerProps.put(kv[0], kv[1]);
    }
    Properties producerProps = new Properties();
    producerProps.put("bootstrap.servers", bootstrap);
    producerProps.put("key.serializer", ByteArraySerializer.class.getName());
    producerProps.put("value.serializer", ByteArraySerializer.class.getName());

    String before = "{" + processSnapshot() + "}";
    List<String> phases = new ArrayList<>();
    String connectSeconds = "null", burstSeconds = "null";
    Receipts receipts = new Receipts(consumerCount);
    long started = System.nanoTime();
    List<Consumer> consumers = new ArrayList<>();
    for (int i = 0; i < consumerCount; i++) {
      final int index = i;
      Consumer member = new Consumer();
      consumers.add(member);
      Properties own = new Properties();
      own.putAll(consumerProps);
      own.put("group.id", groupId + "-" + index);
      own.put("client.id", "bench-many-consumer-" + index);
      new Thread(() -> {
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(own)) {
          member.consumer = consumer;
          consumer.subscribe(List.of(topic));
          while (!member.closing) {
            try {
              int records = consumer.poll(POLL).count();
              if (records > 0) receipts.received(index, records);
            } catch (WakeupException e) {
              break;
            }
          }
        } catch (Exception e) {
          problem("consumer " + index + ": " + e);
        } finally {
          member.closed.countDown();
        }
      }, "bench-many-consumer-" + index).start();
    }
    List<KafkaProducer<byte[], byte[]>> producers = new ArrayList<>();
    for (int i = 0; i < producerCount; i++) {
      Properties own = new Properties();
      own.putAll(producerProps);
      own.put("client.id", "bench-many-producer-" + i);
      producers.add(new KafkaProducer<>(own));
    }

    try {
      if (!send(producers, topic, value, 1) || !receipts.until(producerCount, boundMs)) {
        problem("not every consumer had the first " + producerCount + " records within " + boundMs / 1000 + " s (received: " + receipts.text() + ")");
      } else {
        connectSeconds = Double.toString((System.nanoTime() - started) / 1e9);
        phases.add(idleSnapshot("connected, idle", idleSeconds));
        long burstFrom = System.nanoTime();
        if (!send(producers, topic, value, burst) || !receipts.until((long) producerCount * (1 + burst), boundMs)) {
          problem("not every consumer had the burst within " + boundMs / 1000 + " s");
        } else {
          burstSeconds = Double.toString((System.nanoTime() - burstFrom) / 1e9);
          phases.add(idleSnapshot("after a burst, idle", idleSeconds));
        }
      }
    } finally {
      // Every client closes at once, as runner.ts's do: the consumers on their threads, the producers on a pool's.
      for (Consumer c : consumers) { c.closing = true; if (c.consumer != null) c.consumer.wakeup(); }
      ExecutorService closing = Executors.newFixedThreadPool(Math.max(1, producerCount));
      for (KafkaProducer<byte[], byte[]> p : producers) closing.submit(() -> p.close());
      closing.shutdown();
      closing.awaitTermination(60, TimeUnit.SECONDS);
      for (Consumer c : consumers) c.closed.await();
    }
    // The defaults as the client reads them, for the settings line.
    String protocol = new ConsumerConfig(withGroup(consumerProps)).getString("group.protocol");
    Object linger = new ProducerConfig(producerProps).values().get("linger.ms");
    List<String> problemsJson = new ArrayList<>();
    synchronized (ManyClientsBench.class) { for (String p : problems) problemsJson.add(json(p)); }
    String settings = "a KafkaProducer per producer and a KafkaConsumer per consumer; producers: send(record) per record, then every send's future waited on (the client's defaults: idempotent, acks=all, linger.ms " + linger + "); "
      + "consumers: group.id one per consumer, subscribe, a thread each in a poll(1 s) loop, auto.offset.reset=earliest"
      + (args.length > 9 ? ", " + String.join(" ", java.util.Arrays.copyOfRange(args, 9, args.length)) : "")
      + " (other settings: the Java client's defaults: group.protocol=" + protocol + ", enable.auto.commit every 5 s); \"timers\" = live Java threads (ThreadMXBean), heap = total - free after System.gc(), CPU = OperatingSystemMXBean.getProcessCpuTime()";
    System.out.println("BENCH-RESULT {\"before\":" + before + ",\"phases\":[" + String.join(",", phases) + "],\"connectSeconds\":" + connectSeconds + ",\"burstSeconds\":" + burstSeconds
      + ",\"problems\":[" + String.join(",", problemsJson) + "],\"settings\":" + json(settings) + ",\"runtime\":\"java " + System.getProperty("java.version") + ", kafka-clients 4.4.0\"}");
    System.exit(0);
  }

  /** The consumers' properties with a group id, for reading the default group.protocol. */
  static Properties withGroup(Properties props) {
    Properties own = new Properties();
    own.putAll(props);
    own.put("group.id", "settings");
    return own;
  }

  /**
   * Every producer sends `count` records at once (as runner.ts's Promise.all; a first send
   * blocks on the topic's metadata, so each producer sends on a pool thread of its own, shut
   * down before any snapshot), each waiting on its records' futures. False if a send failed.
   */
  static boolean send(List<KafkaProducer<byte[], byte[]>> producers, String topic, byte[] value, int count) throws InterruptedException {
    ExecutorService pool = Executors.newFixedThreadPool(Math.max(1, producers.size()));
    List<Future<Boolean>> sent = new ArrayList<>();
    for (KafkaProducer<byte[], byte[]> producer : producers) {
      sent.add(pool.submit(() -> {
        List<Future<RecordMetadata>> acks = new ArrayList<>();
        for (int i = 0; i < count; i++) acks.add(producer.send(new ProducerRecord<>(topic, value)));
        for (Future<RecordMetadata> ack : acks) ack.get();
        return true;
      }));
    }
    boolean ok = true;
    for (Future<Boolean> f : sent) {
      try { f.get(); } catch (Exception e) { ok = false; problem("send failed: " + e.getCause()); }
    }
    pool.shutdown();
    pool.awaitTermination(60, TimeUnit.SECONDS);
    return ok;
  }
}
