package dev.idempotency.it.overload;

import jakarta.annotation.sql.DataSourceDefinition;
import jakarta.enterprise.context.ApplicationScoped;

import dev.idempotency.it.support.PostgreSqlDataSource;

/**
 * The payments datasource of {@link dev.idempotency.it.support.PostgreSqlDataSource} with a pool
 * of {@value #SIZE} connections: small enough for a dozen callers to run it dry.
 */
@DataSourceDefinition(name = PostgreSqlDataSource.JNDI_NAME,
        className = "org.postgresql.ds.PGSimpleDataSource",
        url = PostgreSqlDataSource.URL,
        user = PostgreSqlDataSource.USER,
        password = "",
        minPoolSize = 1,
        maxPoolSize = SmallPool.SIZE)
@ApplicationScoped
public class SmallPool {

    public static final int SIZE = 4;
}
