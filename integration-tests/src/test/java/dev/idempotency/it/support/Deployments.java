package dev.idempotency.it.support;

import java.io.File;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import org.jboss.shrinkwrap.api.ArchivePath;
import org.jboss.shrinkwrap.api.ShrinkWrap;
import org.jboss.shrinkwrap.api.asset.StringAsset;
import org.jboss.shrinkwrap.api.importer.ZipImporter;
import org.jboss.shrinkwrap.api.spec.WebArchive;

import dev.idempotency.infinispan.InfinispanSettings;
import dev.idempotency.it.resources.ProducedCacheManager;
import dev.idempotency.sample.PaymentsPersistence;

/**
 * Test deployments: the sample application exactly as built, on PostgreSQL instead of the
 * server's default datasource, plus test-only parts.
 */
public final class Deployments {

    private static final String CONFIG = "WEB-INF/classes/META-INF/microprofile-config.properties";
    private static final String PERSISTENCE = "WEB-INF/classes/META-INF/persistence.xml";

    private Deployments() {
    }

    /**
     * @param name the archive name (the context root)
     * @param config the microprofile-config.properties to use instead of the sample's
     * @param hotRod the Infinispan client properties, added to that config
     * @return the sample WAR on the Infinispan store instead of the JPA store (its business data
     *     still on PostgreSQL): the JPA store's jar and entity out, the Infinispan store's jars in
     */
    public static WebArchive sampleAppOnInfinispan(String name, String config, Properties hotRod) {
        return withInfinispanStore(sampleAppOnMemoryStore(name, withClient(config, hotRod)));
    }

    /**
     * @param name the archive name (the context root)
     * @param config the microprofile-config.properties to use instead of the sample's
     * @param hotRod the Infinispan client properties, added to that config
     * @return the sample WAR with both store modules, so on the tiered store: Infinispan in front
     *     of the JPA store on PostgreSQL
     */
    public static WebArchive sampleAppOnTieredStore(String name, String config, Properties hotRod) {
        return withInfinispanStore(sampleApp(name, withClient(config, hotRod)));
    }

    /**
     * @param name the archive name (the context root)
     * @param config the microprofile-config.properties to use instead of the sample's
     * @param hotRod the Infinispan client properties, added to that config
     * @param jdbcUrl a PostgreSQL database of the test's own
     * @return the sample WAR on the tiered store, the JPA store and the payments on that database
     *     ({@link #sampleAppOnDatabase})
     */
    public static WebArchive sampleAppOnTieredStoreOnDatabase(String name, String config, Properties hotRod,
            String jdbcUrl) {
        return withInfinispanStore(sampleAppOnDatabase(name, withClient(config, hotRod), jdbcUrl));
    }

    /**
     * @param name the archive name (the context root)
     * @param config the microprofile-config.properties to use instead of the sample's
     * @param redis the Redis store's settings ({@code idempotency.redis.*}), added to that config
     * @return the sample WAR with the Redis store's jars beside the JPA store's, so on the tiered
     *     store: Redis in front of the JPA store on PostgreSQL
     */
    public static WebArchive sampleAppOnTieredRedisStore(String name, String config, Map<String, String> redis) {
        return withRedisStore(sampleApp(name, withRedisSettings(config, redis)));
    }

    /**
     * @param name the archive name (the context root)
     * @param config the microprofile-config.properties to use instead of the sample's
     * @param redis the Redis store's settings ({@code idempotency.redis.*}), added to that config
     * @return the sample WAR on the Redis store instead of the JPA store (its business data still
     *     on PostgreSQL): the JPA store's jar and entity out, the Redis store's jars
     *     (target/redis-libs: the store, Lettuce, Netty 4.2, Reactor) in; the Redis store is then
     *     the deployment's only store module, not the front of a tiered store
     */
    public static WebArchive sampleAppOnRedis(String name, String config, Map<String, String> redis) {
        return withRedisStore(sampleAppOnMemoryStore(name, withRedisSettings(config, redis)));
    }

    private static String withRedisSettings(String config, Map<String, String> redis) {
        StringBuilder withRedis = new StringBuilder(config).append('\n');
        redis.forEach((key, value) -> withRedis.append(key).append('=').append(value).append('\n'));
        return withRedis.toString();
    }

    private static WebArchive withRedisStore(WebArchive archive) {
        File[] libs = new File(System.getProperty("redis.libs", "target/redis-libs")).listFiles();
        if (libs == null || libs.length == 0) {
            throw new IllegalStateException("no Redis store jars in " + System.getProperty("redis.libs"));
        }
        archive.addAsLibraries(libs);
        return archive;
    }

    private static String withClient(String config, Properties hotRod) {
        StringBuilder withClient = new StringBuilder(config).append('\n');
        hotRod.forEach((key, value) -> withClient.append(key).append('=').append(value).append('\n'));
        return withClient.toString();
    }

    private static WebArchive withInfinispanStore(WebArchive archive) {
        File[] libs = new File(System.getProperty("infinispan.libs", "target/infinispan-libs")).listFiles();
        if (libs == null || libs.length == 0) {
            throw new IllegalStateException("no Infinispan store jars in " + System.getProperty("infinispan.libs"));
        }
        archive.addAsLibraries(libs);
        return archive;
    }

    /**
     * @param name the archive name (the context root)
     * @param config the microprofile-config.properties to use instead of the sample's
     * @return the sample WAR on the library's default in-memory store (its business data still
     *     on PostgreSQL): the JPA store's jar and entity out
     */
    public static WebArchive sampleAppOnMemoryStore(String name, String config) {
        WebArchive archive = sampleApp(name, config);
        archive.delete(PERSISTENCE);
        archive.addAsResource("postgresql/persistence-infinispan.xml", "META-INF/persistence.xml");
        archive.deleteClass(PaymentsPersistence.class);
        List<ArchivePath> jpaStore = archive.getContent(path -> path.get().startsWith("/WEB-INF/lib/idempotency-jpa"))
                .keySet().stream().toList();
        jpaStore.forEach(archive::delete);
        return archive;
    }

    /**
     * @param name the archive name (the context root)
     * @param config the microprofile-config.properties to use instead of the sample's
     * @param hotRod the Infinispan client properties, put under {@code test.hotrod.*} for the
     *     application's own producer
     * @return the sample WAR on the Infinispan store, whose client the application produces
     *     ({@link ProducedCacheManager}) instead of the store building it from MicroProfile Config
     */
    public static WebArchive sampleAppOnInfinispanWithProducedClient(String name, String config, Properties hotRod) {
        Properties renamed = new Properties();
        hotRod.forEach((key, value) -> renamed.setProperty(ProducedCacheManager.PREFIX
                + key.toString().substring(InfinispanSettings.CLIENT_PREFIX.length()), value.toString()));
        return sampleAppOnInfinispan(name, config, renamed).addClass(ProducedCacheManager.class);
    }

    /**
     * @param name the archive name (the context root)
     * @param config the microprofile-config.properties to use instead of the sample's
     * @param jdbcUrl a PostgreSQL database of the test's own
     * @return the sample WAR on the JPA store, its unit on that database: a {@code <data-source>}
     *     in web.xml instead of {@link PostgreSqlDataSource}, whose pool checks a connection before
     *     handing it out and drops them all when one is dead, so that it recovers from an outage
     *     (Payara refuses an empty password; the test database trusts loopback and ignores it)
     */
    public static WebArchive sampleAppOnDatabase(String name, String config, String jdbcUrl) {
        WebArchive archive = sampleApp(name, config);
        archive.deleteClass(PostgreSqlDataSource.class);
        archive.setWebXML(new StringAsset("""
                <?xml version="1.0" encoding="UTF-8"?>
                <web-app xmlns="https://jakarta.ee/xml/ns/jakartaee" version="6.0">
                  <data-source>
                    <name>%s</name>
                    <class-name>org.postgresql.ds.PGSimpleDataSource</class-name>
                    <url>%s</url>
                    <user>%s</user>
                    <password>trust-auth-ignores-it</password>
                    <min-pool-size>2</min-pool-size>
                    <max-pool-size>40</max-pool-size>
                    <property><name>fish.payara.is-connection-validation-required</name><value>true</value></property>
                    <property><name>fish.payara.connection-validation-method</name><value>auto-commit</value></property>
                    <property><name>fish.payara.fail-all-connections</name><value>true</value></property>
                  </data-source>
                </web-app>
                """.formatted(PostgreSqlDataSource.JNDI_NAME, jdbcUrl, PostgreSqlDataSource.USER)));
        return archive;
    }

    /**
     * @param name the archive name (the context root)
     * @param config the microprofile-config.properties to use instead of the sample's
     * @param persistenceXml a test resource to use as the persistence unit (on PostgreSQL)
     * @param classes the test classes to add (the unit's extra entities among them)
     * @return the sample WAR on PostgreSQL with a persistence unit of the test's own
     */
    public static WebArchive sampleAppWithUnit(String name, String config, String persistenceXml, Class<?>... classes) {
        WebArchive archive = sampleApp(name, config);
        archive.delete(PERSISTENCE);
        archive.addAsResource(persistenceXml, "META-INF/persistence.xml");
        return archive.addClasses(classes);
    }

    /**
     * @param name the archive name (the context root)
     * @return the sample WAR exactly as built: the demo, on the server's default datasource
     */
    public static WebArchive sampleAppAsBuilt(String name) {
        File war = new File(System.getProperty("sample.war", "target/payments.war"));
        return ShrinkWrap.create(ZipImporter.class, name + ".war").importFrom(war).as(WebArchive.class);
    }

    /**
     * @param name the archive name (the context root)
     * @param config the microprofile-config.properties to use instead of the sample's
     * @return the sample WAR built by this module, with that config, its persistence unit on
     *     PostgreSQL ({@link PostgreSqlDataSource}, the driver in WEB-INF/lib)
     */
    public static WebArchive sampleApp(String name, String config) {
        WebArchive archive = sampleAppAsBuilt(name);
        archive.delete(CONFIG);
        archive.add(new StringAsset(config), CONFIG);
        archive.delete(PERSISTENCE);
        archive.addAsResource("postgresql/persistence.xml", "META-INF/persistence.xml");
        archive.addClass(PostgreSqlDataSource.class);
        archive.addAsLibrary(new File(System.getProperty("postgresql.driver", "target/postgresql.jar")));
        return archive;
    }
}
