// Prints the wire schema of every version of the named Kafka messages, as the broker jar on the
// classpath defines them; tests/protocol/conformance.test.ts compares kafkats's schemas against it.

import java.util.*;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.types.*;
public class SchemaDump {
  static String t(Type ty) throws Exception {
    if (ty instanceof Schema) {
      StringBuilder sb = new StringBuilder("{");
      for (BoundField bf : ((Schema) ty).fields()) {
        if (sb.length() > 1) sb.append(", ");
        sb.append(bf.def.name).append(":").append(t(bf.def.type));
      }
      return sb.append("}").toString();
    }
    if (ty instanceof TaggedFields) {
      java.lang.reflect.Field f = TaggedFields.class.getDeclaredField("fields"); f.setAccessible(true);
      Map<Integer, org.apache.kafka.common.protocol.types.Field> m = (Map) f.get(ty);
      if (m.isEmpty()) return "TAGS()";
      StringBuilder sb = new StringBuilder("TAGS(");
      for (Map.Entry<Integer, org.apache.kafka.common.protocol.types.Field> e : m.entrySet())
        sb.append("tag").append(e.getKey()).append(" ").append(e.getValue().name).append(":").append(t(e.getValue().type)).append("; ");
      return sb.append(")").toString();
    }
    if (ty.isArray()) {
      // Named from the type itself: before Kafka 4.0 a nullable array printed as ARRAY.
      String name = (ty instanceof CompactArrayOf ? "COMPACT_" : "") + (ty.isNullable() ? "NULLABLE_" : "") + "ARRAY";
      return name + "(" + t(ty.arrayElementType().get()) + ")";
    }
    return ty.toString();
  }
  // The highest version a broker advertises in ApiVersions: the newest one unless that is still
  // marked unstable (a broker offers unstable versions only with unstable.api.versions.enable).
  static String stable(String name) {
    for (ApiKeys k : ApiKeys.values()) if (k.name.equals(name)) return " stable " + k.latestVersion(false);
    return "";
  }
  public static void main(String[] a) throws Exception {
    for (String n : a) {
      for (String side : new String[]{"Request","Response"}) {
        Class<?> c;
        try {
          c = Class.forName("org.apache.kafka.common.message." + n + side + "Data");
        } catch (ClassNotFoundException e) {
          System.out.println("== " + n + side + " missing");
          continue;
        }
        short lo = c.getField("LOWEST_SUPPORTED_VERSION").getShort(null);
        short hi = c.getField("HIGHEST_SUPPORTED_VERSION").getShort(null);
        System.out.println("== " + n + side + " versions " + lo + "-" + hi + stable(n));
        Schema[] s = (Schema[]) c.getField("SCHEMAS").get(null);
        for (int v = lo; v <= hi; v++) System.out.println("v" + v + ": " + t(s[v]));
      }
    }
  }
}
