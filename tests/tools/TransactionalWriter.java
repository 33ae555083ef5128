// Writes one partition with the Java client: transactions committed and aborted, from two
// transactional producers at once, interleaved with records of a plain producer.
// tests/integration/consumer-direct.test.ts compiles it against the broker jars and reads
// the log back with read_committed and read_uncommitted.
//
//   java TransactionalWriter <bootstrap> <topic> <partition> <transactional.id prefix> <step>...
//
// Steps, run in order (P is producer 1 or 2):
//   n:K   K records from the plain (non-transactional) producer
//   bP    begin a transaction on producer P
//   tP:K  K records in producer P's open transaction
//   cP    commit producer P's transaction
//   aP    abort producer P's transaction
//   hold  print "HOLDING" and wait for a line on stdin (a transaction can be left open meanwhile)
//
// Every send is flushed before the next step, so the log holds the records in step order.
// Once a record's fate is known it prints "WROTE <offset> <plain|committed|aborted> <value>";
// at the end it prints "DONE".

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.*;
import java.util.concurrent.Future;
import org.apache.kafka.clients.producer.*;
import org.apache.kafka.common.serialization.StringSerializer;

public class TransactionalWriter {
  public static void main(String[] args) throws Exception {
    if (args.length < 4) throw new IllegalArgumentException("usage: TransactionalWriter <bootstrap> <topic> <partition> <transactional.id prefix> <step>...");
    String bootstrap = args[0];
    String topic = args[1];
    int partition = Integer.parseInt(args[2]);
    String prefix = args[3];

    Producer<String, String> plain = new KafkaProducer<>(config(bootstrap, null));
    Map<Integer, Producer<String, String>> transactional = new HashMap<>();
    Map<Integer, List<String>> pending = new HashMap<>();
    BufferedReader stdin = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    int sequence = 0;
    try {
      for (int i = 4; i < args.length; i++) {
        String step = args[i];
        if (step.equals("hold")) {
          System.out.println("HOLDING");
          System.out.flush();
          stdin.readLine();
          continue;
        }
        char op = step.charAt(0);
        if (op == 'n') {
          int count = Integer.parseInt(step.substring(2));
          for (int k = 0; k < count; k++) {
            String value = "plain-" + (sequence++);
            long offset = plain.send(new ProducerRecord<>(topic, partition, "k", value)).get().offset();
            System.out.println("WROTE " + offset + " plain " + value);
          }
          continue;
        }
        int id = step.charAt(1) - '0';
        if (id != 1 && id != 2) throw new IllegalArgumentException("unknown producer in step " + step);
        Producer<String, String> producer = transactional.get(id);
        if (producer == null) {
          producer = new KafkaProducer<>(config(bootstrap, prefix + "-" + id));
          producer.initTransactions();
          transactional.put(id, producer);
          pending.put(id, new ArrayList<>());
        }
        switch (op) {
          case 'b':
            producer.beginTransaction();
            break;
          case 't': {
            int count = Integer.parseInt(step.substring(3));
            for (int k = 0; k < count; k++) {
              String value = "txn" + id + "-" + (sequence++);
              Future<RecordMetadata> sent = producer.send(new ProducerRecord<>(topic, partition, "k", value));
              producer.flush();
              pending.get(id).add(sent.get().offset() + " " + value);
            }
            break;
          }
          case 'c':
          case 'a': {
            if (op == 'c') producer.commitTransaction();
            else producer.abortTransaction();
            for (String record : pending.get(id)) {
              String[] parts = record.split(" ", 2);
              System.out.println("WROTE " + parts[0] + (op == 'c' ? " committed " : " aborted ") + parts[1]);
            }
            pending.get(id).clear();
            break;
          }
          default:
            throw new IllegalArgumentException("unknown step " + step);
        }
      }
    } finally {
      plain.close();
      for (Producer<String, String> producer : transactional.values()) producer.close();
    }
    System.out.println("DONE");
    System.out.flush();
  }

  static Properties config(String bootstrap, String transactionalId) {
    Properties props = new Properties();
    props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    props.put(ProducerConfig.ACKS_CONFIG, "all");
    props.put(ProducerConfig.LINGER_MS_CONFIG, "0");
    if (transactionalId != null) {
      props.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
      props.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, "60000");
    }
    return props;
  }
}
