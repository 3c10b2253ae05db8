package dev.idempotency.jpa;

import java.io.IOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;

import jakarta.persistence.EntityManagerFactory;
import jakarta.persistence.Persistence;

import dev.idempotency.jpa.testing.ShippedDdl;

/** The real databases of these machines (loopback), with the shipped DDL applied fresh. */
final class Databases {

    private Databases() {
    }

    /**
     * Recreates the table from the jar's DDL and opens the test persistence unit on it.
     *
     * @param url the JDBC URL
     * @param user the user
     * @param ddl the DDL file name under META-INF/idempotency/ddl
     * @return a factory on the database
     */
    static EntityManagerFactory fresh(String url, String user, String ddl) throws SQLException, IOException {
        return fresh(url, user, ddl, "idempotency-test");
    }

    /**
     * Recreates the table from the jar's DDL and opens a test persistence unit on it.
     *
     * @param url the JDBC URL
     * @param user the user
     * @param ddl the DDL file name under META-INF/idempotency/ddl
     * @param unit the unit: {@code idempotency-test} (EclipseLink) or {@code idempotency-test-hibernate}
     * @return a factory on the database
     */
    static EntityManagerFactory fresh(String url, String user, String ddl, String unit) throws SQLException, IOException {
        recreate(url, user, ddl);
        return Persistence.createEntityManagerFactory(unit, Map.of(
                "jakarta.persistence.jdbc.url", url,
                "jakarta.persistence.jdbc.user", user,
                "jakarta.persistence.jdbc.password", "",
                "eclipselink.session-name", "idempotency-test-main"));
    }

    /**
     * Recreates the table from the jar's DDL.
     *
     * @param url the JDBC URL
     * @param user the user
     * @param ddl the DDL file name under META-INF/idempotency/ddl
     */
    static void recreate(String url, String user, String ddl) throws SQLException, IOException {
        try (Connection connection = DriverManager.getConnection(url, user, "");
                Statement statement = connection.createStatement()) {
            ShippedDdl.recreate(statement, ddl);
        }
    }

    /**
     * Opens the test persistence unit on a database whose table exists, as a node of its own:
     * EclipseLink shares one session (and its connections) between factories of the same unit
     * unless their session names differ.
     *
     * @param url the JDBC URL
     * @param user the user
     * @param node names the session
     * @return a factory on the database
     */
    static EntityManagerFactory open(String url, String user, String node) {
        return open(url, user, node, "idempotency-test");
    }

    /**
     * Opens a test persistence unit on a database whose table exists, as a node of its own.
     *
     * @param url the JDBC URL
     * @param user the user
     * @param node names the session
     * @param unit the persistence unit
     * @return a factory on the database
     */
    static EntityManagerFactory open(String url, String user, String node, String unit) {
        return Persistence.createEntityManagerFactory(unit, Map.of(
                "jakarta.persistence.jdbc.url", url,
                "jakarta.persistence.jdbc.user", user,
                "jakarta.persistence.jdbc.password", "",
                "eclipselink.session-name", "idempotency-test-" + node));
    }
}
