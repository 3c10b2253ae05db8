package dev.idempotency.benchmarks;

import java.io.IOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;

import dev.idempotency.infinispan.InfinispanServer;
import dev.idempotency.jpa.testing.OwnPostgreSql;
import dev.idempotency.jpa.testing.ShippedDdl;

/**
 * The real servers the store benchmarks run against, started by the runner as processes of
 * their own (loopback only) and stopped by PID: one Infinispan server, one PostgreSQL, with
 * the JPA store's shipped DDL and the raw benchmark's table, and one {@code redis-server} (port
 * 7450, {@code -Dbench.redis.port}); only those of the stores asked for. Their addresses reach
 * JMH's forked JVMs as system properties.
 */
final class BenchmarkServers implements AutoCloseable {

    static final String HOTROD_PORT = "bench.hotrod.port";
    static final String JDBC_URL = "bench.jdbc.url";

    /** the Redis server's port, 7450 unless given */
    static final String REDIS_PORT = "bench.redis.port";

    private InfinispanServer infinispan;
    private OwnPostgreSql postgres;
    private OwnRedis redis;

    private BenchmarkServers() {
    }

    /**
     * @param stores which stores' servers to start: {@code infinispan}, {@code jpa}, {@code redis}
     * @return the started servers
     */
    static BenchmarkServers start(Set<String> stores) throws Exception {
        BenchmarkServers servers = new BenchmarkServers();
        try {
            if (stores.contains("infinispan")) {
                servers.infinispan = InfinispanServer.single("bench", InfinispanServer.freeJGroupsPort());
            }
            if (stores.contains("jpa")) {
                servers.postgres = OwnPostgreSql.start(Path.of("benchmarks", "target", "postgresql", "data").toAbsolutePath());
                servers.createTables();
            }
            if (stores.contains("redis")) {
                servers.redis = OwnRedis.start(Integer.getInteger(REDIS_PORT, 7450),
                        Path.of("benchmarks", "target", "redis").toAbsolutePath());
            }
        } catch (Exception | Error e) {
            servers.close();
            throw e;
        }
        return servers;
    }

    private void createTables() throws SQLException, IOException {
        try (Connection connection = postgres.connect(); Statement statement = connection.createStatement()) {
            ShippedDdl.recreate(statement, "postgresql.sql");
            statement.execute("DROP TABLE IF EXISTS raw_record");
            // the same indexes as the store's table: a purge needs them, so their upkeep is part of the floor
            statement.execute("CREATE TABLE raw_record (record_key VARCHAR(64) PRIMARY KEY, state VARCHAR(16) NOT NULL,"
                    + " fingerprint VARCHAR(64) NOT NULL, owner_token VARCHAR(36) NOT NULL, lease_end TIMESTAMP NOT NULL,"
                    + " status INT, body BYTEA, expires_at TIMESTAMP)");
            statement.execute("CREATE INDEX raw_record_expiry ON raw_record (state, expires_at)");
            statement.execute("CREATE INDEX raw_record_lease ON raw_record (state, lease_end)");
        }
    }

    /** @return the options that tell a forked JVM where the servers are */
    List<String> jvmOptions() {
        List<String> options = new ArrayList<>();
        exports().forEach((key, value) -> options.add("-D" + key + "=" + value));
        return options;
    }

    /** Tells this JVM too where the servers are, for the measurements the runner makes itself. */
    void exportToThisJvm() {
        exports().forEach(System::setProperty);
    }

    private Map<String, String> exports() {
        Map<String, String> exports = new LinkedHashMap<>();
        if (infinispan != null) {
            exports.put(HOTROD_PORT, String.valueOf(infinispan.port()));
        }
        if (postgres != null) {
            exports.put(JDBC_URL, postgres.jdbcUrl());
        }
        if (redis != null) {
            exports.put(REDIS_PORT, String.valueOf(redis.port()));
        }
        return exports;
    }

    /** @return the Redis server's URI, without the password ({@link OwnRedis#PASSWORD}; in a forked JVM) */
    static String redisUri() {
        return "redis://127.0.0.1:" + redisPort();
    }

    /** @return the Redis server's port (in a forked JVM) */
    static int redisPort() {
        return Integer.getInteger(REDIS_PORT, 7450);
    }

    /** @return the Hot Rod client properties (in a forked JVM) */
    static Properties hotRodClient() {
        Properties client = new Properties();
        client.setProperty("infinispan.client.hotrod.server_list", "127.0.0.1:" + Integer.getInteger(HOTROD_PORT));
        client.setProperty("infinispan.client.hotrod.auth_username", InfinispanServer.USER);
        client.setProperty("infinispan.client.hotrod.auth_password", InfinispanServer.PASSWORD);
        client.setProperty("infinispan.client.hotrod.sasl_mechanism", "SCRAM-SHA-512");
        return client;
    }

    /** @return the benchmark database (in a forked JVM) */
    static String jdbcUrl() {
        return System.getProperty(JDBC_URL);
    }

    @Override
    public void close() throws Exception {
        try {
            if (redis != null) {
                redis.close();
            }
        } finally {
            try {
                if (postgres != null) {
                    postgres.close();
                }
            } finally {
                if (infinispan != null) {
                    infinispan.close();
                }
            }
        }
    }
}
