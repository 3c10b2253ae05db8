package dev.idempotency.infinispan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Optional;

import org.infinispan.client.hotrod.RemoteCacheManager;
import org.infinispan.commons.configuration.StringConfiguration;
import org.junit.jupiter.api.Test;

/**
 * The partition handling of the cache the store creates, read back from a real server: a split
 * cluster denies reads and writes of keys whose owners it does not all have, instead of letting
 * both halves claim one key, and a merge resolves no conflicts (the denied half wrote nothing);
 * and the start-up check that names a cache the application made that can run a key twice.
 */
class PartitionHandlingTest {

    @Test
    void theCreatedCacheDeniesReadsAndWritesWhenSplitAndResolvesNoConflictsOnMerge() throws Exception {
        try (InfinispanServer server = InfinispanServer.single("split", InfinispanServer.freeJGroupsPort());
                RemoteCacheManager manager = new RemoteCacheManager(
                        InfinispanConnection.clientConfiguration(server.clientProperties()))) {
            new InfinispanIdempotencyStore(new InfinispanConnection(manager,
                    InfinispanSettings.load(key -> Optional.empty()))).find("connects");

            String configuration = CacheConfigurationCheck.read(server.adminClientProperties(), "idempotency")
                    .replace(" ", "");

            assertThat(configuration).contains("\"when-split\":\"DENY_READ_WRITES\"")
                    .doesNotContain("PREFERRED_ALWAYS", "PREFERRED_NON_NULL", "REMOVE_ALL"); // NONE, Infinispan's default
            assertThat(CacheConfigurationCheck.risk(CacheConfigurationCheck.read(server.adminClientProperties(), "idempotency")))
                    .as("the start-up check on the store's own cache").isEmpty();
            assertThat(CacheConfigurationCheck.evictionRisk(CacheConfigurationCheck.read(server.adminClientProperties(),
                    "idempotency"))).as("the store's own cache is bounded but refuses new keys when full").isEmpty();
        }
    }

    @Test
    void aCacheTheApplicationCreatedWithoutPartitionHandlingIsNamedAsOneThatCanRunAKeyTwice() throws Exception {
        try (InfinispanServer server = InfinispanServer.single("split-app", InfinispanServer.freeJGroupsPort());
                RemoteCacheManager manager = new RemoteCacheManager(
                        InfinispanConnection.clientConfiguration(server.clientProperties()))) {
            manager.administration().getOrCreateCache("app-made", new StringConfiguration(
                    "<distributed-cache mode=\"SYNC\" owners=\"2\"><encoding media-type=\"application/x-protostream\"/>"
                            + "</distributed-cache>"));
            manager.administration().getOrCreateCache("app-removing", new StringConfiguration(
                    "<distributed-cache mode=\"SYNC\" owners=\"2\"><encoding media-type=\"application/x-protostream\"/>"
                            + "<partition-handling when-split=\"DENY_READ_WRITES\" merge-policy=\"REMOVE_ALL\"/>"
                            + "</distributed-cache>"));
            manager.administration().getOrCreateCache("app-resolving", new StringConfiguration(
                    "<distributed-cache mode=\"SYNC\" owners=\"2\"><encoding media-type=\"application/x-protostream\"/>"
                            + "<partition-handling when-split=\"DENY_READ_WRITES\" merge-policy=\"PREFERRED_ALWAYS\"/>"
                            + "</distributed-cache>"));

            Optional<String> unhandled = CacheConfigurationCheck.risk(
                    CacheConfigurationCheck.read(server.adminClientProperties(), "app-made"));
            Optional<String> removing = CacheConfigurationCheck.risk(
                    CacheConfigurationCheck.read(server.adminClientProperties(), "app-removing"));

            assertThat(unhandled).hasValueSatisfying(risk -> assertThat(risk).contains("ALLOW_READ_WRITES"));
            assertThat(removing).hasValueSatisfying(risk -> assertThat(risk).contains("REMOVE_ALL"));
            assertThat(CacheConfigurationCheck.risk(CacheConfigurationCheck.read(server.adminClientProperties(),
                    "app-resolving"))).as("conflict resolution lost records in PartitionTest")
                    .hasValueSatisfying(risk -> assertThat(risk).contains("PREFERRED_ALWAYS"));
            assertThatThrownBy(() -> CacheConfigurationCheck.read(server.clientProperties(), "app-made"))
                    .as("a deployer may not read configurations: the check is skipped with a note")
                    .hasMessageContaining("403");
        }
    }

    /**
     * A cache the application made with a bound and no cache store evicts records when full
     * (Infinispan's default for a bound, or {@code when-full="REMOVE"}): a key whose record is evicted
     * runs again, and the start-up check names it ({@code IDEMP0616}); a bound that refuses new
     * entries, a bound over a cache store, and no bound, are not named.
     */
    @Test
    void aCacheThatEvictsRecordsWhenFullIsNamedAsOneThatCanRunAKeyTwice() throws Exception {
        try (InfinispanServer server = InfinispanServer.single("evicting", InfinispanServer.freeJGroupsPort());
                RemoteCacheManager manager = new RemoteCacheManager(
                        InfinispanConnection.clientConfiguration(server.clientProperties()))) {
            String open = "<distributed-cache mode=\"SYNC\" owners=\"2\"><encoding media-type=\"application/x-protostream\"/>";
            String close = "</distributed-cache>";
            manager.administration().getOrCreateCache("app-removing-when-full", new StringConfiguration(
                    open + "<memory max-count=\"1000\" when-full=\"REMOVE\"/>" + close));
            manager.administration().getOrCreateCache("app-bounded-by-default", new StringConfiguration(
                    open + "<memory max-size=\"10MB\" storage=\"OFF_HEAP\"/>" + close));
            manager.administration().getOrCreateCache("app-refusing-when-full", new StringConfiguration(
                    open + "<memory max-count=\"1000\" when-full=\"EXCEPTION\"/>"
                            + "<transaction mode=\"NON_DURABLE_XA\" locking=\"PESSIMISTIC\"/>" + close));
            manager.administration().getOrCreateCache("app-passivating", new StringConfiguration(
                    open + "<memory max-count=\"1000\" when-full=\"REMOVE\"/>"
                            + "<persistence passivation=\"true\"><file-store/></persistence>" + close));
            manager.administration().getOrCreateCache("app-read-only-store", new StringConfiguration(
                    open + "<memory max-count=\"1000\" when-full=\"REMOVE\"/>"
                            + "<persistence><file-store read-only=\"true\"/></persistence>" + close));
            manager.administration().getOrCreateCache("app-unbounded", new StringConfiguration(open + close));

            assertThat(evictionRisk(server, "app-removing-when-full")).hasValueSatisfying(
                    risk -> assertThat(risk).contains("max-count 1000", "REMOVE"));
            assertThat(evictionRisk(server, "app-bounded-by-default")).as("a bound and no when-full")
                    .hasValueSatisfying(risk -> assertThat(risk).contains("max-size"));
            assertThat(evictionRisk(server, "app-refusing-when-full")).isEmpty();
            assertThat(evictionRisk(server, "app-passivating")).as("evicted to a cache store, not lost").isEmpty();
            assertThat(evictionRisk(server, "app-read-only-store")).as("a read-only store keeps nothing evicted")
                    .isPresent();
            assertThat(evictionRisk(server, "app-unbounded")).isEmpty();
            assertThat(InfinispanMessages.evictionRisk("app-removing-when-full", "max-count 1000, when-full REMOVE"))
                    .startsWith("IDEMP0616").contains("app-removing-when-full", "max-count 1000", "EXCEPTION");
        }
    }

    private static Optional<String> evictionRisk(InfinispanServer server, String cache) throws Exception {
        String configuration = CacheConfigurationCheck.read(server.adminClientProperties(), cache);
        System.out.println("eviction check, " + cache + ": " + configuration.replaceAll("\\s", ""));
        return CacheConfigurationCheck.evictionRisk(configuration);
    }
}
