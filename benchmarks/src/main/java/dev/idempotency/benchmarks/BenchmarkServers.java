package dev.idempotency.benchmarks;

import java.io.IOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Properties;

import dev.idempotency.infinispan.InfinispanServer;
import dev.idempotency.jpa.testing.OwnPostgreSql;
import dev.idempotency.jpa.testing.ShippedDdl;

/**
 * The real servers the store benchmarks run against, started by the runner as processes of
 * their own (loopback only) and stopped by PID: one Infinispan server and one PostgreSQL, with
 * the JPA store's shipped DDL and the raw benchmark's table. Their addresses reach JMH's forked
 * JVMs as system properties.
 */
final class BenchmarkServers implements AutoCloseable {

    static final String HOTROD_PORT = "bench.hotrod.port";
    static final String JDBC_URL = "bench.jdbc.url";

    private final InfinispanServer infinispan;
    private final OwnPostgreSql postgres;

    private BenchmarkServers(InfinispanServer infinispan, OwnPostgreSql postgres) {
        this.infinispan = infinispan;
        this.postgres = postgres;
    }

    static BenchmarkServers start() throws Exception {
        InfinispanServer infinispan = InfinispanServer.single("bench", InfinispanServer.freeJGroupsPort());
        OwnPostgreSql postgres;
        try {
            postgres = OwnPostgreSql.start(Path.of("benchmarks", "target", "postgresql", "data").toAbsolutePath());
        } catch (Exception | Error e) {
            infinispan.close();
            throw e;
        }
        BenchmarkServers servers = new BenchmarkServers(infinispan, postgres);
        try (Connection connection = postgres.connect(); Statement statement = connection.createStatement()) {
            ShippedDdl.recreate(statement, "postgresql.sql");
            statement.execute("DROP TABLE IF EXISTS raw_record");
            // the same indexes as the store's table: a purge needs them, so their upkeep is part of the floor
            statement.execute("CREATE TABLE raw_record (record_key VARCHAR(64) PRIMARY KEY, state VARCHAR(16) NOT NULL,"
                    + " fingerprint VARCHAR(64) NOT NULL, owner_token VARCHAR(36) NOT NULL, lease_end TIMESTAMP NOT NULL,"
                    + " status INT, body BYTEA, expires_at TIMESTAMP)");
            statement.execute("CREATE INDEX raw_record_expiry ON raw_record (state, expires_at)");
            statement.execute("CREATE INDEX raw_record_lease ON raw_record (state, lease_end)");
        } catch (SQLException | IOException | RuntimeException e) {
            servers.close();
            throw e;
        }
        return servers;
    }

    /** @return the options that tell a forked JVM where the servers are */
    List<String> jvmOptions() {
        return List.of("-D" + HOTROD_PORT + "=" + infinispan.port(), "-D" + JDBC_URL + "=" + postgres.jdbcUrl());
    }

    /** Tells this JVM too where the servers are, for the measurements the runner makes itself. */
    void exportToThisJvm() {
        System.setProperty(HOTROD_PORT, String.valueOf(infinispan.port()));
        System.setProperty(JDBC_URL, postgres.jdbcUrl());
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
            postgres.close();
        } finally {
            infinispan.close();
        }
    }
}
