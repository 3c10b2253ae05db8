package dev.idempotency.jpa.testing;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

import org.postgresql.ds.PGSimpleDataSource;

/**
 * A PostgreSQL datasource that keeps its connections for the next caller, as a server's pool
 * does: closing one hands it back. For tests whose many concurrent claims would otherwise open
 * (and fork a backend for) a connection each.
 */
public final class PooledDataSource extends PlainDataSource implements AutoCloseable {

    private final PGSimpleDataSource database = new PGSimpleDataSource();
    private final Queue<Connection> idle = new ConcurrentLinkedQueue<>();

    /**
     * @param url the JDBC URL
     * @param user its user (no password on these machines)
     */
    public PooledDataSource(String url, String user) {
        database.setUrl(url);
        database.setUser(user);
    }

    @Override
    public Connection getConnection() throws SQLException {
        Connection physical = idle.poll();
        if (physical == null || physical.isClosed()) {
            physical = database.getConnection();
        }
        Connection pooled = physical;
        return (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(), new Class<?>[] {Connection.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("close") && method.getParameterCount() == 0) {
                        if (!pooled.getAutoCommit()) {
                            pooled.rollback();
                            pooled.setAutoCommit(true);
                        }
                        idle.add(pooled);
                        return null;
                    }
                    try {
                        return method.invoke(pooled, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    /** Closes the kept connections. */
    @Override
    public void close() throws SQLException {
        for (Connection connection = idle.poll(); connection != null; connection = idle.poll()) {
            connection.close();
        }
    }
}
