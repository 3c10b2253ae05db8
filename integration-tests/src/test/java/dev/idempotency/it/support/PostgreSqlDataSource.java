package dev.idempotency.it.support;

import jakarta.annotation.sql.DataSourceDefinition;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * The test WARs' datasource: the PostgreSQL of this machine (127.0.0.1:5432, database
 * {@code test}), its driver in WEB-INF/lib. Sized for the 50-request storms.
 */
@DataSourceDefinition(name = PostgreSqlDataSource.JNDI_NAME,
        className = "org.postgresql.ds.PGSimpleDataSource",
        url = PostgreSqlDataSource.URL,
        user = PostgreSqlDataSource.USER,
        password = "",
        minPoolSize = 2,
        maxPoolSize = 80)
@ApplicationScoped
public class PostgreSqlDataSource {

    public static final String JNDI_NAME = "java:app/jdbc/payments";
    /** Also what the tests use to count rows. */
    public static final String URL = "jdbc:postgresql://127.0.0.1:5432/test";
    public static final String USER = "postgres";
}
