// The Java client's runner of the groups benchmark (bench/groups/run.ts compiles it with
// javac against the Kafka jars and runs it): the timeline and definitions of runner.ts in
// Java. Arguments: bootstrap, topic, partitions, protocol (consumer | classic), members,
// group id, idle seconds, bound seconds, then consumer properties as key=value.
//
// Each member is a KafkaConsumer on a thread of its own (a KafkaConsumer is not
// thread-safe): subscribe with a ConsumerRebalanceListener that feeds the watch, then poll
// until told to close. Nothing is committed (enable.auto.commit=false). Requests are not
// counted per API (the Java client has no such metric): each member's thread publishes its
// coordinator's heartbeat-total, the fetch manager's fetch-total and request-total after
// every poll, and the runner reports heartbeats, fetches and the rest ("Other").
//
// Prints one line: BENCH-RESULT {json}.
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

public class GroupsBench {
  static final long SETTLE_MS = 1000;

  /** runner.ts's GroupWatch; every method under the object's lock. */
  static class Watch {
    final List<Set<Integer>> owners = new ArrayList<>();
    final int[] flowing;
    final List<Set<Integer>> owned = new ArrayList<>();
    final Set<Integer> gone = new HashSet<>();
    /** Records a member received before its listener said it owns the partition: they count once it does. */
    final Set<Long> early = new HashSet<>();
    final List<String> problems = new ArrayList<>();
    int changes = 0;

    Watch(int partitions, int members) {
      flowing = new int[partitions];
      for (int p = 0; p < partitions; p++) { owners.add(new HashSet<>()); flowing[p] = -1; }
      for (int m = 0; m < members; m++) owned.add(new HashSet<>());
    }

    static long key(int member, int partition) { return ((long) member << 32) | partition; }

    synchronized void assigned(int member, Collection<Integer> partitions) {
      for (int p : partitions) {
        owners.get(p).add(member);
        owned.get(member).add(p);
        if (early.remove(key(member, p)) && !gone.contains(member)) flowing[p] = member;
      }
      changes++;
      notifyAll();
    }

    synchronized void revoked(int member, Collection<Integer> partitions) {
      for (int p : partitions) {
        owners.get(p).remove(member);
        owned.get(member).remove(p);
        if (flowing[p] == member) flowing[p] = -1;
        early.remove(key(member, p));
      }
      changes++;
      notifyAll();
    }

    synchronized void consumed(int member, int partition) {
      if (gone.contains(member) || flowing[partition] == member) return;
      if (!owners.get(partition).contains(member)) { early.add(key(member, partition)); return; }
      flowing[partition] = member;
      notifyAll();
    }

    synchronized void problem(String text) { if (problems.size() < 5) problems.add(text); }

    synchronized List<Integer> leaving(int member) {
      gone.add(member);
      return new ArrayList<>(owned.get(member));
    }

    synchronized boolean stable() {
      for (int p = 0; p < flowing.length; p++) if (owners.get(p).size() != 1 || flowing[p] == -1) return false;
      for (int m = 0; m < owned.size(); m++) if (!gone.contains(m) && owned.get(m).isEmpty()) return false;
      return true;
    }

    synchronized boolean moved(List<Integer> partitions) {
      for (int p : partitions) if (flowing[p] == -1 || gone.contains(flowing[p])) return false;
      return true;
    }

    interface Test { boolean holds(); }

    synchronized boolean until(Test test, long boundMs) throws InterruptedException {
      long deadline = System.currentTimeMillis() + boundMs;
      while (!test.holds()) {
        long left = deadline - System.currentTimeMillis();
        if (left <= 0) return false;
        wait(left);
      }
      return true;
    }
  }

  /** One member: its consumer's thread, and the request counters it last published (heartbeats, fetches, all). */
  static class Member {
    final AtomicReference<double[]> counters = new AtomicReference<>(new double[3]);
    volatile KafkaConsumer<byte[], byte[]> consumer;
    volatile boolean closing = false;
    final CountDownLatch closed = new CountDownLatch(1);
    Thread thread;
  }

  static double metric(Map<MetricName, ? extends Metric> metrics, String group, String name) {
    double sum = 0;
    for (Map.Entry<MetricName, ? extends Metric> e : metrics.entrySet()) {
      if (e.getKey().group().equals(group) && e.getKey().name().equals(name) && e.getKey().tags().getOrDefault("node-id", "").isEmpty()) {
        Object value = e.getValue().metricValue();
        if (value instanceof Double) sum += (Double) value;
      }
    }
    return sum;
  }

  static double[] sum(List<Member> members) {
    double[] total = new double[3];
    for (Member m : members) { double[] c = m.counters.get(); for (int i = 0; i < 3; i++) total[i] += c[i]; }
    return total;
  }

  static String counts(double[] to, double[] from, String heartbeat) {
    long heartbeats = Math.round(to[0] - from[0]), fetches = Math.round(to[1] - from[1]), all = Math.round(to[2] - from[2]);
    return "{\"" + heartbeat + "\":" + heartbeats + ",\"Fetch\":" + fetches + ",\"Other\":" + Math.max(0, all - heartbeats - fetches) + "}";
  }

  static String json(String text) { return "\"" + text.replace("\\", "\\\\").replace("\"", "\\\"") + "\""; }

  public static void main(String[] args) throws Exception {
    String bootstrap = args[0];
    String topic = args[1];
    int partitions = Integer.parseInt(args[2]);
    String protocol = args[3];
    int count = Integer.parseInt(args[4]);
    String groupId = args[5];
    double idleSeconds = Double.parseDouble(args[6]);
    long boundMs = (long) (Double.parseDouble(args[7]) * 1000);
    Properties props = new Properties();
    props.put("bootstrap.servers", bootstrap);
    props.put("group.id", groupId);
    props.put("group.protocol", protocol);
    props.put("enable.auto.commit", "false");
    props.put("auto.offset.reset", "earliest");
    props.put("key.deserializer", ByteArrayDeserializer.class.getName());
    props.put("value.deserializer", ByteArrayDeserializer.class.getName());
    for (int i = 8; i < args.length; i++) {
      String[] kv = args[i].split("=", 2);
      props.put(kv[0], kv[1]);
    }
    String heartbeat = protocol.equals("consumer") ? "ConsumerGroupHeartbeat" : "Heartbeat";
    Watch watch = new Watch(partitions, count);
    List<Member> members = new ArrayList<>();
    long started = System.nanoTime();
    for (int i = 0; i < count; i++) {
      final int index = i;
      Member member = new Member();
      members.add(member);
      member.thread = new Thread(() -> {
        Properties own = new Properties();
        own.putAll(props);
        own.put("client.id", "bench-groups-" + index);
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(own)) {
          member.consumer = consumer;
          consumer.subscribe(List.of(topic), new ConsumerRebalanceListener() {
            public void onPartitionsRevoked(Collection<TopicPartition> revoked) { watch.revoked(index, ours(revoked, topic)); }
            public void onPartitionsAssigned(Collection<TopicPartition> assigned) { watch.assigned(index, ours(assigned, topic)); }
            public void onPartitionsLost(Collection<TopicPartition> lost) { watch.revoked(index, ours(lost, topic)); }
          });
          while (!member.closing) {
            try {
              ConsumerRecords<byte[], byte[]> records = consumer.poll(Duration.ofMillis(100));
              for (TopicPartition tp : records.partitions()) if (tp.topic().equals(topic) && !records.records(tp).isEmpty()) watch.consumed(index, tp.partition());
            } catch (WakeupException e) {
              break;
            }
            Map<MetricName, ? extends Metric> metrics = consumer.metrics();
            member.counters.set(new double[] {
              metric(metrics, "consumer-coordinator-metrics", "heartbeat-total"),
              metric(metrics, "consumer-fetch-manager-metrics", "fetch-total"),
              metric(metrics, "consumer-metrics", "request-total")
            });
          }
        } catch (Exception e) {
          watch.problem("member " + index + ": " + e);
        } finally {
          member.closed.countDown();
        }
      });
      member.thread.start();
    }

    String stableSeconds = "null", rebalanceSeconds = "null", closeSeconds = "null", idle = "0";
    String join = "{}", idleRequests = "{}", rebalance = "{}";
    Set<Member> open = new HashSet<>(members);
    try {
      double[] zero = new double[3];
      if (!watch.until(watch::stable, boundMs)) {
        watch.problem("not stable within " + boundMs / 1000 + " s");
      } else {
        stableSeconds = Double.toString((System.nanoTime() - started) / 1e9);
        Thread.sleep(200);
        double[] atStable = sum(members);
        join = counts(atStable, zero, heartbeat);
        Thread.sleep(SETTLE_MS);
        int changes;
        synchronized (watch) { changes = watch.changes; }
        double[] from = sum(members);
        long idleFrom = System.nanoTime();
        Thread.sleep((long) (idleSeconds * 1000));
        double[] to = sum(members);
        idle = Double.toString((System.nanoTime() - idleFrom) / 1e9);
        idleRequests = counts(to, from, heartbeat);
        synchronized (watch) { if (watch.changes != changes) watch.problem("the assignment changed " + (watch.changes - changes) + " times in the idle window"); }
        if (count >= 2) {
          int leaver = count - 1;
          Member left = members.get(leaver);
          List<Integer> theirs = watch.leaving(leaver);
          long leftAt = System.nanoTime();
          open.remove(left);
          left.closing = true;
          if (left.consumer != null) left.consumer.wakeup();
          if (watch.until(() -> watch.moved(theirs), boundMs)) rebalanceSeconds = Double.toString((System.nanoTime() - leftAt) / 1e9);
          else watch.problem("the leaver's " + theirs.size() + " partitions did not move within " + boundMs / 1000 + " s");
          rebalance = counts(sum(members), to, heartbeat);
          left.closed.await();
          closeSeconds = Double.toString((System.nanoTime() - leftAt) / 1e9);
        }
      }
    } finally {
      for (Member m : open) { m.closing = true; if (m.consumer != null) m.consumer.wakeup(); }
      for (Member m : open) m.closed.await();
    }
    List<String> problems = new ArrayList<>();
    synchronized (watch) { for (String p : watch.problems) problems.add(json(p)); }
    String settings = "a KafkaConsumer per member (a thread each), group.protocol=" + protocol + ", subscribe with a ConsumerRebalanceListener, poll(100 ms), enable.auto.commit=false auto.offset.reset=earliest"
      + (args.length > 8 ? ", " + String.join(" ", java.util.Arrays.copyOfRange(args, 8, args.length)) : "")
      + " (other settings: the Java client's defaults: classic heartbeat.interval.ms 3000, partition.assignment.strategy range then cooperative-sticky, metadata.max.age.ms 5 min); requests counted from its metrics: heartbeat-total, fetch-total, the rest of request-total as Other";
    System.out.println("BENCH-RESULT {\"stableSeconds\":" + stableSeconds + ",\"rebalanceSeconds\":" + rebalanceSeconds + ",\"closeSeconds\":" + closeSeconds + ",\"idleSeconds\":" + idle
      + ",\"joinRequests\":" + join + ",\"idleRequests\":" + idleRequests + ",\"rebalanceRequests\":" + rebalance + ",\"problems\":[" + String.join(",", problems) + "]"
      + ",\"settings\":" + json(settings) + ",\"runtime\":\"java " + System.getProperty("java.version") + ", kafka-clients 4.4.0\"}");
    System.exit(0);
  }

  static List<Integer> ours(Collection<TopicPartition> partitions, String topic) {
    List<Integer> list = new ArrayList<>();
    for (TopicPartition tp : partitions) if (tp.topic().equals(topic)) list.add(tp.partition());
    return list;
  }
}
