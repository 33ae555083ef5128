// Prints "<key> <name> <oldest> <latest>" for every API key of the kafka-clients jar on the
// classpath (latest: the newest stable version; -1 when the API has none yet), for any release
// from 0.11 on; tests/protocol/api-releases.test.ts compares protocol/api-releases.ts with it.

import java.lang.reflect.*;
import org.apache.kafka.common.protocol.ApiKeys;
public class ApiKeysDump {
  public static void main(String[] a) throws Exception {
    for (ApiKeys k : ApiKeys.values()) {
      short latest;
      try { latest = (Short) ApiKeys.class.getMethod("latestVersion", boolean.class).invoke(k, false); }
      catch (NoSuchMethodException e) { latest = (Short) ApiKeys.class.getMethod("latestVersion").invoke(k); }
      short oldest = (Short) ApiKeys.class.getMethod("oldestVersion").invoke(k);
      System.out.println(k.id + " " + k.name + " " + oldest + " " + latest);
    }
  }
}
