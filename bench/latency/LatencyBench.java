// The Java client's runner of the steady-rate latency benchmark (bench/latency/run.ts
// compiles it with javac against the Kafka jars and runs it). Arguments: bootstrap, topic,
// partitions, value size, rate (records/s), duration s, warm-up s, linger ms, drain s,
// end-to-end latency file, ack latency file, then client properties as key=value
// (consumer.key=value for the consumer).
//
// A KafkaProducer (acks=all, idempotent, linger.ms as given) on the main thread and a
// KafkaConsumer assigned every partition from the beginning on a second thread, in one
// JVM. The record layout, the readiness record, the schedule and the files are
// bench/latency/runner.ts's; both latencies count from a record's due time on
// System.nanoTime(). Prints one line: BENCH-RESULT {json}. CPU is the JVM's process CPU
// time from before the clients are made to after they are closed.
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

public class LatencyBench {
  static final long READY_SEQUENCE = 0xffffffffL;
  static final long BASE = System.nanoTime();

  static double nowMs() {
    return (System.nanoTime() - BASE) / 1e6;
  }

  static byte[] stampedValue(int size, long sequence, double dueMs) {
    byte[] value = new byte[size];
    ByteBuffer buffer = ByteBuffer.wrap(value).order(ByteOrder.LITTLE_ENDIAN);
    buffer.putDouble(0, dueMs);
    buffer.putInt(8, (int) sequence);
    byte letter = (byte) (65 + sequence % 26);
    for (int i = 12; i < size; i++) value[i] = letter;
    return value;
  }

  static void writeFloats(String file, float[] values, int count) throws Exception {
    ByteBuffer buffer = ByteBuffer.allocate(4 * count).order(ByteOrder.LITTLE_ENDIAN);
    for (int i = 0; i < count; i++) buffer.putFloat(values[i]);
    Files.write(Paths.get(file), buffer.array());
  }

  public static void main(String[] args) throws Exception {
    String bootstrap = args[0];
    String topic = args[1];
    int partitions = Integer.parseInt(args[2]);
    int valueSize = Integer.parseInt(args[3]);
    double rate = Double.parseDouble(args[4]);
    double durationSeconds = Double.parseDouble(args[5]);
    double warmupSeconds = Double.parseDouble(args[6]);
    String lingerMs = args[7];
    double drainSeconds = Double.parseDouble(args[8]);
    String e2eFile = args[9];
    String ackFile = args[10];
    int warmup = (int) Math.round(warmupSeconds * rate);
    int measured = (int) Math.round(durationSeconds * rate);
    int total = warmup + measured;

    Properties producerProps = new Properties();
    producerProps.put("bootstrap.servers", bootstrap);
    producerProps.put("acks", "all");
    producerProps.put("enable.idempotence", "true");
    producerProps.put("linger.ms", lingerMs);
    producerProps.put("batch.size", Integer.toString(256 * 1024));
    producerProps.put("key.serializer", ByteArraySerializer.class.getName());
    producerProps.put("value.serializer", ByteArraySerializer.class.getName());
    Properties consumerProps = new Properties();
    consumerProps.put("bootstrap.servers", bootstrap);
    consumerProps.put("enable.auto.commit", "false");
    consumerProps.put("key.deserializer", ByteArrayDeserializer.class.getName());
    consumerProps.put("value.deserializer", ByteArrayDeserializer.class.getName());
    StringBuilder shown = new StringBuilder();
    for (int i = 11; i < args.length; i++) {
      String[] kv = args[i].split("=", 2);
      if (kv[0].startsWith("consumer.")) consumerProps.put(kv[0].substring("consumer.".length()), kv[1]);
      else producerProps.put(kv[0], kv[1]);
    }
    for (String key : new String[] {"acks", "enable.idempotence", "linger.ms", "batch.size"}) shown.append(key).append('=').append(producerProps.get(key)).append(' ');

    byte[][] keys = new byte[1024][];
    for (int i = 0; i < keys.length; i++) keys[i] = ("key-" + i).getBytes("UTF-8");
    float[] e2e = new float[measured];
    float[] ack = new float[measured];
    boolean[] seen = new boolean[measured];
    AtomicInteger received = new AtomicInteger();
    AtomicInteger duplicates = new AtomicInteger();
    AtomicInteger acknowledged = new AtomicInteger();
    AtomicInteger failed = new AtomicInteger();
    AtomicReference<String> firstError = new AtomicReference<>();
    double[] lastArrival = new double[1];
    CountDownLatch ready = new CountDownLatch(1);
    CountDownLatch all = new CountDownLatch(1);
    AtomicBoolean stop = new AtomicBoolean();

    com.sun.management.OperatingSystemMXBean os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    long cpuStart = os.getProcessCpuTime();
    KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(producerProps);
    KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(consumerProps);
    List<TopicPartition> assigned = new ArrayList<>();
    for (int p = 0; p < partitions; p++) assigned.add(new TopicPartition(topic, p));
    Thread reader = new Thread(() -> {
      consumer.assign(assigned);
      consumer.seekToBeginning(assigned);
      while (!stop.get()) {
        var records = consumer.poll(Duration.ofMillis(100));
        double now = nowMs();
        for (ConsumerRecord<byte[], byte[]> record : records) {
          ByteBuffer value = ByteBuffer.wrap(record.value()).order(ByteOrder.LITTLE_ENDIAN);
          long sequence = value.getInt(8) & 0xffffffffL;
          if (sequence == READY_SEQUENCE) {
            ready.countDown();
            continue;
          }
          if (sequence < warmup) continue;
          int i = (int) (sequence - warmup);
          if (seen[i]) {
            duplicates.incrementAndGet();
            continue;
          }
          seen[i] = true;
          e2e[received.get()] = (float) (now - value.getDouble(0));
          lastArrival[0] = now;
          if (received.incrementAndGet() == measured) all.countDown();
        }
      }
      consumer.close();
    });
    reader.start();

    // The readiness record, through before the clock starts.
    producer.send(new ProducerRecord<>(topic, keys[0], stampedValue(valueSize, READY_SEQUENCE, nowMs()))).get();
    if (!ready.await(60, TimeUnit.SECONDS)) throw new IllegalStateException("the readiness record was not consumed within 60 s");

    double interval = 1000 / rate;
    double start = nowMs() + 1;
    double maxSendLag = 0;
    for (int sequence = 0; sequence < total; ) {
      double now = nowMs();
      for (; sequence < total; sequence++) {
        double due = start + sequence * interval;
        if (due > now) break;
        if (now - due > maxSendLag) maxSendLag = now - due;
        int measuredIndex = sequence - warmup;
        producer.send(new ProducerRecord<>(topic, keys[sequence % keys.length], stampedValue(valueSize, sequence, due)), (metadata, error) -> {
          if (error != null) {
            failed.incrementAndGet();
            firstError.compareAndSet(null, error.toString());
          } else if (measuredIndex >= 0) {
            ack[acknowledged.getAndIncrement()] = (float) (nowMs() - due);
          }
        });
      }
      if (sequence < total) {
        double wait = start + sequence * interval - nowMs();
        if (wait > 0) LockSupport.parkNanos((long) (wait * 1e6));
      }
    }
    producer.flush();
    all.await((long) (drainSeconds * 1000), TimeUnit.MILLISECONDS);
    stop.set(true);
    reader.join();
    double end = received.get() == measured ? lastArrival[0] : nowMs();
    producer.close();
    double cpuSeconds = (os.getProcessCpuTime() - cpuStart) / 1e9;

    writeFloats(e2eFile, e2e, received.get());
    writeFloats(ackFile, ack, acknowledged.get());
    String error = firstError.get();
    System.out.println("BENCH-RESULT {"
        + "\"scheduled\":" + measured
        + ",\"acknowledged\":" + acknowledged.get()
        + ",\"failed\":" + failed.get()
        + ",\"received\":" + received.get()
        + ",\"duplicates\":" + duplicates.get()
        + ",\"maxSendLagMs\":" + maxSendLag
        + ",\"wallSeconds\":" + (end - (start + warmup * interval)) / 1000
        + ",\"cpuSeconds\":" + cpuSeconds
        + ",\"settings\":\"KafkaProducer.send(record, callback) on the schedule (" + shown.toString().trim() + "); KafkaConsumer assign() every partition + seekToBeginning, poll(100 ms) on a second thread (other settings: the clients' defaults)\""
        + ",\"runtime\":\"java " + System.getProperty("java.version") + ", kafka-clients " + org.apache.kafka.common.utils.internals.AppInfoParser.getVersion() + "\""
        + (error == null ? "" : ",\"firstError\":\"" + error.replace("\\", "\\\\").replace("\"", "\\\"") + "\"")
        + "}");
  }
}
