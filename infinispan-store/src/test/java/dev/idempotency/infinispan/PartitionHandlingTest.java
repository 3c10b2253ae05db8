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
 * both halves claim one key, and a merge resolves no conflicts (the denied half wrote nothing).
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
}
