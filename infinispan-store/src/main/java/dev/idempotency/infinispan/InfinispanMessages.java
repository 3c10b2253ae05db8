package dev.idempotency.infinispan;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.TreeSet;

/**
 * The coded messages of the Infinispan store, range 06xx: every one of them is written here, and
 * docs/troubleshooting.md explains each. Codes are stable: users search for them.
 * docs/message-codes.md lists which module owns which range. Messages never contain raw keys or
 * bodies.
 *
 * <p>Ranges: 0601-0604 the store's settings, 0610-0616 the server: the schema, records of other
 * versions, the cache's partition handling and eviction.
 */
final class InfinispanMessages {

    private InfinispanMessages() {
    }

    // --- 0601-0605: settings ------------------------------------------------------------

    /** IDEMP0601: {@code idempotency.infinispan.cache} is not a valid cache name; fails the deployment. */
    static String invalidCacheName(String key, String value) {
        return "IDEMP0601: library setting " + key + "='" + value
                + "' is not allowed; allowed: a cache name of letters, digits, '.', '_' and '-'";
    }

    /** IDEMP0602: {@code idempotency.infinispan.cache-configuration} is neither XML nor JSON; fails the deployment. */
    static String invalidCacheConfiguration(String key, String value) {
        return "IDEMP0602: library setting " + key + "='" + value
                + "' is not allowed; allowed: an Infinispan cache configuration in XML or JSON";
    }

    /** IDEMP0603: {@code idempotency.infinispan.max-entries} is not a positive whole number; fails the deployment. */
    static String invalidMaxEntries(String key, String value) {
        return "IDEMP0603: library setting " + key + "='" + value
                + "' is not allowed; allowed: a whole number of entries per node, 1 to " + Long.MAX_VALUE;
    }

    /** IDEMP0604: both {@code max-entries} and {@code cache-configuration} are set; fails the deployment. */
    static String maxEntriesBesideConfiguration(String key, String value, String configurationKey) {
        return "IDEMP0604: library setting " + key + "='" + value + "' is not allowed beside " + configurationKey
                + "; allowed: one of them (bound a cache configuration of your own with <memory max-count=\"...\""
                + " when-full=\"EXCEPTION\"/> and a transaction mode, or leave out the configuration)";
    }

    /** IDEMP0605: {@code idempotency.infinispan.clock-skew} is not a duration from PT0S to PT1M; fails the deployment. */
    static String invalidClockSkew(String key, String value) {
        return "IDEMP0605: library setting " + key + "='" + value + "' is not allowed; allowed: an ISO-8601 duration"
                + " from PT0S to PT1M (default PT0.1S), as far apart as the Infinispan servers' clocks may be";
    }

    // --- 0610-0616: the server ----------------------------------------------------------

    /** IDEMP0610 (WARNING, once): the server holds a newer schema, left in place (a rolling upgrade). */
    static String newerSchema(int theirs, String name, int ours) {
        return "IDEMP0610: the Infinispan server holds version " + theirs + " of the idempotency schema (" + name
                + "), newer than this node's (" + ours + "): left as it is (a rolling upgrade under way); this node"
                + " reads records of the newer version, treating states it does not know as executed (their outcome still due: claims get 409, never a takeover). Logged once.";
    }

    /** IDEMP0611 (WARNING, once per state): a record's state is unknown to this version; read as executed. */
    static String unknownRecordState(String state, String key) {
        return "IDEMP0611: a record in the Infinispan cache has a state this version of the store does not know or"
                + " cannot read ('" + state + "', first seen on key " + key + "), probably written by a newer version;"
                + " it is read as executed with its outcome still due: the key never runs again here, its claims"
                + " answer 409 until the record expires or a node that knows the state changes it. Logged once"
                + " per state.";
    }

    /** IDEMP0612 (WARNING): the cache's partition handling or merge policy can run a key twice in a split. */
    static String partitionRisk(String cacheName, String risk) {
        return "IDEMP0612: the Infinispan cache '" + cacheName + "' " + risk + "; define it with <partition-handling"
                + " when-split=\"DENY_READ_WRITES\" merge-policy=\"NONE\"/> (the store's default configuration does)";
    }

    /** IDEMP0613 (INFO): the cache's configuration could not be read over REST, so it is not checked. */
    static String configurationUnreadable(String cacheName, Exception cause) {
        return "IDEMP0613: the configuration of the Infinispan cache '" + cacheName + "' could not be read through"
                + " the server's REST API (" + cause + "; it needs a user with the ADMIN permission); its partition"
                + " handling is not checked";
    }

    /** IDEMP0614 (WARNING): the server refused to replace its older schema with this node's; the store works on. */
    static String schemaUpgradeRefused(int theirs, String name, int ours, String why) {
        return "IDEMP0614: the Infinispan server refused to replace version " + theirs + " of the idempotency schema ("
                + name + ") with this node's version " + ours + ": " + why
                + "; the store works on, the server reads records with the version it has";
    }

    /**
     * IDEMP0615 (WARNING): the store created its cache at run time on a cluster (or on one of
     * unknown size), where Infinispan may not apply the partition handling.
     *
     * @param servers the servers of the cluster, or 0 when unknown
     */
    static String cacheCreatedOnCluster(String name, int servers) {
        return "IDEMP0615: the store created the Infinispan cache '" + name + "' at run time on a cluster of "
                + (servers == 0 ? "an unknown number of" : String.valueOf(servers)) + " nodes; Infinispan applies"
                + " its partition handling only if the coordinator had the definition before any node started the"
                + " cache, which a cache created at run time does not ensure, so until the coordinator changes a"
                + " split may let both halves claim one key: define the cache in the servers' configuration (the"
                + " XML is in docs/stores/infinispan.md)";
    }

    /** IDEMP0616 (WARNING): the cache evicts entries when full and keeps no copy in a cache store. */
    static String evictionRisk(String cacheName, String bound) {
        return "IDEMP0616: the Infinispan cache '" + cacheName + "' is bounded (" + bound + ") and keeps no cache store:"
                + " when full it evicts entries, and a record evicted frees its key, whose work is in progress or done, so"
                + " a retry runs it again; define it with <memory ... when-full=\"EXCEPTION\"/> in a transactional cache"
                + " (<transaction mode=\"NON_DURABLE_XA\" locking=\"PESSIMISTIC\"/>; a full cache then refuses new keys, 503,"
                + " and evicts nothing, as the store's own cache does) or give it a cache store";
    }

    /**
     * IDEMP0617: the Hot Rod client refuses its properties (passwords and other secrets shown as
     * {@code ***}).
     */
    static String unusableClientProperties(Properties client, String why) {
        List<String> shown = new ArrayList<>();
        for (String name : new TreeSet<>(client.stringPropertyNames())) {
            String lower = name.toLowerCase(Locale.ROOT);
            // a uri may hold the user's password, and the client's reason may quote it
            boolean secret = lower.contains("password") || lower.contains("secret") || lower.contains("token")
                    || lower.endsWith(".uri");
            shown.add(name + "='" + (secret ? "***" : client.getProperty(name)) + "'");
        }
        String reason = client.getProperty("infinispan.client.hotrod.uri") == null ? why : "(not shown: it may quote the uri)";
        return "IDEMP0617: the Hot Rod client cannot use the infinispan.client.hotrod.* properties (" + String.join(", ", shown)
                + "): " + reason + "; allowed: what the Infinispan client documents for each (server_list:"
                + " host:port;host:port; uri: hotrod://user:password@host:port)";
    }
}
