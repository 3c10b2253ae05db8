package dev.idempotency.infinispan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;

import org.junit.jupiter.api.Test;

import dev.idempotency.exceptions.IdempotencyDefinitionException;
import dev.idempotency.spi.support.ConfigLookup;

/** The Infinispan store's settings: defaults, overrides, and deployment errors that name key, value and what is allowed. */
class InfinispanSettingsTest {

    static ConfigLookup config(Map<String, String> values) {
        return key -> Optional.ofNullable(values.get(key));
    }

    @Test
    void defaultsToADistributedCacheWithTwoOwnersStoringProtoStream() {
        InfinispanSettings settings = InfinispanSettings.load(config(Map.of()));

        assertThat(settings.cacheName()).isEqualTo("idempotency");
        assertThat(settings.cacheConfiguration()).contains("distributed-cache", "mode=\"SYNC\"", "owners=\"2\"",
                "application/x-protostream");
    }

    /**
     * Hot Rod client properties the client cannot use: they deployed, and every request then failed
     * with the client's own exception (a 503, or a run on failOpen endpoints), naming no property.
     */
    @Test
    void clientPropertiesTheClientCannotUseFailTheDeploymentNamingThem() {
        Properties badServers = new Properties();
        badServers.setProperty("infinispan.client.hotrod.server_list", "ispn-1:11222:x");
        Properties badRetries = new Properties();
        badRetries.setProperty("infinispan.client.hotrod.server_list", "127.0.0.1:11222");
        badRetries.setProperty("infinispan.client.hotrod.max_retries", "-1");

        assertThatThrownBy(() -> InfinispanConnection.clientConfiguration(badServers))
                .isInstanceOf(IdempotencyDefinitionException.class)
                .hasMessageStartingWith("IDEMP0617: the Hot Rod client cannot use the infinispan.client.hotrod.* properties"
                        + " (infinispan.client.hotrod.server_list='ispn-1:11222:x')");
        assertThatThrownBy(() -> InfinispanConnection.clientConfiguration(badRetries))
                .isInstanceOf(IdempotencyDefinitionException.class)
                .hasMessageContaining("infinispan.client.hotrod.max_retries='-1'");
        Properties good = new Properties();
        good.setProperty("infinispan.client.hotrod.server_list", "127.0.0.1:11222");
        assertThat(InfinispanConnection.clientConfiguration(good).servers()).hasSize(1);
        Properties badUri = new Properties();
        badUri.setProperty("infinispan.client.hotrod.uri", "hotrod://idem:s3cret@[bad");
        assertThatThrownBy(() -> InfinispanConnection.clientConfiguration(badUri))
                .isInstanceOf(IdempotencyDefinitionException.class)
                .hasMessageContaining("infinispan.client.hotrod.uri='***'").hasMessageNotContaining("s3cret");
    }

    /**
     * A client configured by URI (Infinispan's usual form) or naming a marshaller of its own still
     * marshals the store's records: the URI's configuration replaced the store's schema when read
     * after it, and every call then failed.
     */
    @Test
    void theStoresSchemaAndMarshallerSurviveAClientConfiguredByUri() {
        Properties byUri = new Properties();
        byUri.setProperty("infinispan.client.hotrod.uri", "hotrod://idem:secret@127.0.0.1:11222");
        byUri.setProperty("infinispan.client.hotrod.marshaller",
                "org.infinispan.commons.marshall.JavaSerializationMarshaller");

        var configuration = InfinispanConnection.clientConfiguration(byUri);

        assertThat(configuration.getContextInitializers()).contains(IdempotencySchema.INSTANCE);
        assertThat(configuration.marshaller()).isInstanceOf(org.infinispan.commons.marshall.ProtoStreamMarshaller.class);
        assertThat(configuration.servers()).hasSize(1);
    }

    @Test
    void takesTheCacheNameAndConfigurationFromConfig() {
        InfinispanSettings settings = InfinispanSettings.load(config(Map.of(
                "idempotency.infinispan.cache", "payments-keys",
                "idempotency.infinispan.cache-configuration", "{\"distributed-cache\":{\"owners\":\"3\"}}")));

        assertThat(settings.cacheName()).isEqualTo("payments-keys");
        assertThat(settings.cacheConfiguration()).isEqualTo("{\"distributed-cache\":{\"owners\":\"3\"}}");
    }

    @Test
    void aBadCacheNameFailsTheDeploymentNamingKeyValueAndWhatIsAllowed() {
        assertThatThrownBy(() -> InfinispanSettings.load(config(Map.of("idempotency.infinispan.cache", "my cache"))))
                .isInstanceOf(IdempotencyDefinitionException.class)
                .hasMessageContaining("IDEMP0601").hasMessageContaining("idempotency.infinispan.cache='my cache'")
                .hasMessageContaining("allowed:");
    }

    @Test
    void aCacheConfigurationThatIsNeitherXmlNorJsonFailsTheDeployment() {
        assertThatThrownBy(() -> InfinispanSettings.load(config(Map.of("idempotency.infinispan.cache-configuration", "owners=2"))))
                .isInstanceOf(IdempotencyDefinitionException.class)
                .hasMessageContaining("IDEMP0602").hasMessageContaining("'owners=2'").hasMessageContaining("XML or JSON");
    }

    @Test
    void theDefaultCacheIsBoundedRefusingWritesWhenFullAndDeniesWritesWhenSplit() {
        String configuration = InfinispanSettings.load(config(Map.of())).cacheConfiguration();

        assertThat(configuration).contains("max-count=\"1000000\"", "when-full=\"EXCEPTION\"",
                "when-split=\"DENY_READ_WRITES\"", "merge-policy=\"NONE\"");
        assertThat(InfinispanSettings.load(config(Map.of("idempotency.infinispan.max-entries", "5000")))
                .cacheConfiguration()).contains("max-count=\"5000\"");
    }

    @Test
    void aMaxEntriesThatIsNoPositiveNumberFailsTheDeployment() {
        for (String bad : new String[] {"0", "-5", "lots", "99999999999999999999"}) {
            assertThatThrownBy(() -> InfinispanSettings.load(config(Map.of("idempotency.infinispan.max-entries", bad))))
                    .isInstanceOf(IdempotencyDefinitionException.class)
                    .hasMessageContaining("IDEMP0603").hasMessageContaining("idempotency.infinispan.max-entries='" + bad + "'")
                    .hasMessageContaining("allowed:");
        }
    }

    @Test
    void aMaxEntriesBesideACacheConfigurationOfOnesOwnFailsTheDeploymentRatherThanBeingIgnored() {
        assertThatThrownBy(() -> InfinispanSettings.load(config(Map.of(
                "idempotency.infinispan.max-entries", "5000",
                "idempotency.infinispan.cache-configuration", "<distributed-cache/>"))))
                .isInstanceOf(IdempotencyDefinitionException.class)
                .hasMessageContaining("IDEMP0604").hasMessageContaining("max-count");
    }

    @Test
    void theAllowanceForTheServersClockSkewDefaultsToATenthOfASecondAndIsTakenFromConfig() {
        assertThat(InfinispanSettings.load(config(Map.of())).clockSkew()).isEqualTo(Duration.ofMillis(100));
        assertThat(InfinispanSettings.load(config(Map.of("idempotency.infinispan.clock-skew", "PT2S"))).clockSkew())
                .isEqualTo(Duration.ofSeconds(2));
        assertThat(InfinispanSettings.load(config(Map.of("idempotency.infinispan.clock-skew", "PT0S"))).clockSkew())
                .isZero();
    }

    @Test
    void aClockSkewThatIsNoDurationFromZeroToAMinuteFailsTheDeployment() {
        for (String bad : new String[] {"100ms", "-PT1S", "PT2M", ""}) {
            assertThatThrownBy(() -> InfinispanSettings.load(config(Map.of("idempotency.infinispan.clock-skew", bad))))
                    .isInstanceOf(IdempotencyDefinitionException.class)
                    .hasMessageContaining("IDEMP0605").hasMessageContaining("idempotency.infinispan.clock-skew='" + bad + "'")
                    .hasMessageContaining("allowed:").hasMessageContaining("PT0S to PT1M");
        }
    }

    @Test
    void passesOnlyTheHotRodClientPropertiesThrough() {
        Map<String, String> values = Map.of(
                "infinispan.client.hotrod.server_list", "ispn:11222",
                "infinispan.client.hotrod.auth_username", "idem",
                "idempotency.infinispan.cache", "keys",
                "mp.messaging.incoming.orders.topic", "orders");

        Properties client = InfinispanSettings.clientProperties(List.copyOf(values.keySet()), config(values));

        assertThat(client).containsOnlyKeys("infinispan.client.hotrod.server_list", "infinispan.client.hotrod.auth_username");
        assertThat(client.getProperty("infinispan.client.hotrod.server_list")).isEqualTo("ispn:11222");
    }

    /**
     * Hot Rod settings given as environment variables (INFINISPAN_CLIENT_HOTROD_SERVER_LIST, the
     * credentials, use_ssl): SmallRye lists such a variable as infinispan.client.hotrod.server.list,
     * a name Hot Rod does not know, and servers that list the variable's own name have no prefix to
     * find: the server list, credentials and TLS were silently dropped (a plaintext connection to
     * 127.0.0.1). Hot Rod's own names are now asked of the configuration, which finds a variable by
     * the MicroProfile Config rule (SERVER_LIST for server_list).
     */
    @Test
    void hotRodSettingsGivenAsEnvironmentVariablesAreUsed() {
        Map<String, String> environment = Map.of(
                "INFINISPAN_CLIENT_HOTROD_SERVER_LIST", "ispn-1:11222",
                "INFINISPAN_CLIENT_HOTROD_USE_SSL", "true",
                "INFINISPAN_CLIENT_HOTROD_AUTH_PASSWORD", "pw",
                "INFINISPAN_CLIENT_HOTROD_CONNECTION_POOL_MAX_ACTIVE", "4");
        // what MicroProfile Config answers for a name, from the environment (its three rules)
        ConfigLookup fromEnvironment = key -> Optional.ofNullable(environment.get(key))
                .or(() -> Optional.ofNullable(environment.get(key.replaceAll("[^A-Za-z0-9]", "_"))))
                .or(() -> Optional.ofNullable(environment.get(key.replaceAll("[^A-Za-z0-9]", "_").toUpperCase(java.util.Locale.ROOT))));

        for (List<String> listed : List.of(
                List.of("infinispan.client.hotrod.server.list", "infinispan.client.hotrod.use.ssl",
                        "infinispan.client.hotrod.auth.password", "infinispan.client.hotrod.connection.pool.max.active"),
                // SmallRye's names for the variables
                List.copyOf(environment.keySet()))) { // a server that lists the variables as they are
            Properties client = InfinispanSettings.clientProperties(listed, fromEnvironment);

            assertThat(client).as(listed.toString()).containsEntry("infinispan.client.hotrod.server_list", "ispn-1:11222")
                    .containsEntry("infinispan.client.hotrod.use_ssl", "true")
                    .containsEntry("infinispan.client.hotrod.auth_password", "pw")
                    .containsEntry("infinispan.client.hotrod.connection_pool.max_active", "4")
                    .doesNotContainKey("infinispan.client.hotrod.server.list")
                    .doesNotContainKey("infinispan.client.hotrod.connection.pool.max.active");
        }
    }
}
