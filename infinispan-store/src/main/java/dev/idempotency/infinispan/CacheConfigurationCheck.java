package dev.idempotency.infinispan;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.Optional;
import java.util.Properties;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads the configuration of the cache the store uses from the server's REST API (Hot Rod cannot
 * read it), at the address and with the credentials of the client's properties, and names what in
 * it can run a key twice: the store may point at a cache the application created itself. Hot Rod
 * and REST share one port on a default Infinispan server, and reading a configuration needs the
 * ADMIN permission; where either is missing, the check is skipped with a note.
 */
final class CacheConfigurationCheck {

    private static final Logger LOG = Logger.getLogger(CacheConfigurationCheck.class.getName());
    private static final Pattern WHEN_SPLIT = Pattern.compile("\"when-split\":\"([A-Z_]+)\"");
    private static final Pattern MERGE_POLICY = Pattern.compile("\"merge-policy\":\"([^\"]+)\"");
    private static final Pattern MEMORY = Pattern.compile("\"memory\":\\{([^}]*)}");
    private static final Pattern MAX_COUNT = Pattern.compile("\"max-count\":\"?(-?\\d+)");
    private static final Pattern MAX_SIZE = Pattern.compile("\"max-size\":\"([^\"]+)\"");
    private static final Pattern WHEN_FULL = Pattern.compile("\"when-full\":\"([A-Z_]+)\"");
    /** A cache store under {@code persistence}: an entry evicted from memory is still there. */
    private static final Pattern PERSISTED = Pattern.compile("\"persistence\":\\{[^}]*\"[a-z-]*store\"");
    /** A read-only store keeps nothing that memory gives up. */
    private static final Pattern READ_ONLY = Pattern.compile("\"read-only\":\"?true");

    private CacheConfigurationCheck() {
    }

    /**
     * Logs {@code IDEMP0612} when the cache can run a key twice in a split cluster, and
     * {@code IDEMP0616} when it evicts records to make room; a configuration that cannot be read is
     * noted at INFO ({@code IDEMP0613}), never a failure.
     *
     * @param client the {@code infinispan.client.hotrod.*} properties
     * @param cacheName the cache's name
     */
    static void logRisks(Properties client, String cacheName) {
        try {
            String configuration = read(client, cacheName);
            risk(configuration).ifPresent(risk -> LOG.warning(InfinispanMessages.partitionRisk(cacheName, risk)));
            evictionRisk(configuration).ifPresent(risk -> LOG.warning(InfinispanMessages.evictionRisk(cacheName, risk)));
        } catch (IOException | RuntimeException e) {
            LOG.log(Level.INFO, InfinispanMessages.configurationUnreadable(cacheName, e));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * @param configuration the cache's configuration as the REST API answers it (JSON)
     * @return what in it can run a key twice, if anything
     */
    static Optional<String> risk(String configuration) {
        String compact = configuration.replaceAll("\\s", "");
        if (compact.contains("\"local-cache\"")) {
            return Optional.empty(); // one node: no partition
        }
        Matcher split = WHEN_SPLIT.matcher(compact);
        String whenSplit = split.find() ? split.group(1) : "ALLOW_READ_WRITES";
        if (whenSplit.equals("ALLOW_READ_WRITES")) {
            return Optional.of("lets both halves of a split cluster write (when-split ALLOW_READ_WRITES): each half can"
                    + " accept a claim of the same key and run it");
        }
        Matcher merge = MERGE_POLICY.matcher(compact);
        String mergePolicy = merge.find() ? merge.group(1) : "NONE";
        if (mergePolicy.equals("REMOVE_ALL")) {
            return Optional.of("removes conflicting entries when a split cluster merges (merge-policy REMOVE_ALL): a"
                    + " completed record can be removed and its key run again");
        }
        if (!mergePolicy.equals("NONE")) {
            // PartitionTest, PREFERRED_ALWAYS: each run lost records completed by the majority while split
            return Optional.of("resolves conflicts when a split cluster merges (merge-policy " + mergePolicy + "): the"
                    + " resolution runs while the other half goes on writing, and in a three-node partition test it"
                    + " lost records completed during the split, whose keys then ran again");
        }
        return Optional.empty();
    }

    /**
     * A bounded cache that removes entries when full ({@code when-full="REMOVE"}, Infinispan's
     * default for a bound) frees a key whose work is in progress or done, and a retry runs it
     * again; only without a cache store, which keeps what memory gives up. Warned, not refused:
     * the check is best effort (it needs the ADMIN permission) and the operator's cache is theirs
     * (the Redis store refuses an evicting server since it reads its policy on every connection).
     *
     * @param configuration the cache's configuration as the REST API answers it (JSON)
     * @return how it evicts, if it can evict a record for good
     */
    static Optional<String> evictionRisk(String configuration) {
        String compact = configuration.replaceAll("\\s", "");
        Matcher memory = MEMORY.matcher(compact);
        if (!memory.find() || (PERSISTED.matcher(compact).find() && !READ_ONLY.matcher(compact).find())) {
            return Optional.empty();
        }
        String bounds = memory.group(1);
        Matcher count = MAX_COUNT.matcher(bounds);
        Matcher size = MAX_SIZE.matcher(bounds);
        String bound = count.find() && !count.group(1).startsWith("-") && !count.group(1).matches("0+")
                ? "max-count " + count.group(1)
                : size.find() && !size.group(1).isEmpty() && !size.group(1).startsWith("-") ? "max-size " + size.group(1)
                : null;
        Matcher full = WHEN_FULL.matcher(bounds);
        String whenFull = full.find() ? full.group(1) : "REMOVE";
        if (bound == null || !(whenFull.equals("REMOVE") || whenFull.equals("NONE"))) {
            return Optional.empty();
        }
        return Optional.of(bound + ", when-full " + whenFull);
    }

    /** @return the cache's configuration as JSON, from the first server of the client's list */
    static String read(Properties client, String cacheName) throws IOException, InterruptedException {
        String servers = client.getProperty(InfinispanSettings.CLIENT_PREFIX + "server_list", "127.0.0.1:11222");
        String first = servers.split(";")[0].trim();
        String scheme = Boolean.parseBoolean(client.getProperty(InfinispanSettings.CLIENT_PREFIX + "use_ssl", "false"))
                ? "https" : "http";
        HttpRequest.Builder request = HttpRequest.newBuilder(
                        URI.create(scheme + "://" + first + "/rest/v2/caches/" + cacheName + "?action=config"))
                .timeout(Duration.ofSeconds(3)).header("Accept", "application/json");
        String user = client.getProperty(InfinispanSettings.CLIENT_PREFIX + "auth_username");
        String password = client.getProperty(InfinispanSettings.CLIENT_PREFIX + "auth_password");
        if (user != null && password != null) {
            request.header("Authorization", "Basic "
                    + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8)));
        }
        HttpResponse<String> answer = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(3)).build()
                .send(request.build(), HttpResponse.BodyHandlers.ofString());
        if (answer.statusCode() != 200) {
            throw new IOException("HTTP " + answer.statusCode());
        }
        return answer.body();
    }
}
