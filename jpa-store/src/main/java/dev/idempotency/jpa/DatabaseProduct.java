package dev.idempotency.jpa;

import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Locale;

import jakarta.persistence.EntityManager;

/**
 * The database behind the store's transactions, as its JDBC driver names it: asked once and
 * shared by what depends on it (the clock's expression, the one-statement claim).
 *
 * <p>JPA has no standard way to reach the connection. EclipseLink (Payara, Open Liberty) hands it
 * out through {@code unwrap(Connection.class)} inside a transaction; Hibernate (WildFly) refuses
 * that and lends it through {@code Session.doReturningWork}, reached here by reflection, once,
 * because the store does not depend on Hibernate.
 */
final class DatabaseProduct {

    private volatile String name;

    /**
     * @param transactions where the store's work runs
     * @return the product name in lower case, or null when the provider cannot tell (it keeps its
     *     connection to itself) or the database does not answer; a name, once known, is kept
     */
    String name(RecordTransactions transactions) {
        String known = name;
        if (known == null) {
            known = ask(transactions);
            name = known;
        }
        return known;
    }

    private static String ask(RecordTransactions transactions) {
        try {
            String product = transactions.inNewTransaction(DatabaseProduct::productName);
            return product == null ? null : product.toLowerCase(Locale.ROOT);
        } catch (RuntimeException providerKeepsItsConnection) {
            return null;
        }
    }

    private static String productName(EntityManager em) {
        Connection connection;
        try {
            connection = em.unwrap(Connection.class);
        } catch (RuntimeException notEclipseLink) {
            return productNameFromHibernate(em);
        }
        return productName(connection);
    }

    private static String productName(Connection connection) {
        try {
            return connection.getMetaData().getDatabaseProductName();
        } catch (SQLException e) {
            return null;
        }
    }

    private static String productNameFromHibernate(EntityManager em) {
        try {
            ClassLoader loader = em.getDelegate().getClass().getClassLoader();
            Class<?> session = Class.forName("org.hibernate.Session", false, loader);
            Class<?> work = Class.forName("org.hibernate.jdbc.ReturningWork", false, loader);
            Object lender = em.unwrap(session);
            Object asker = Proxy.newProxyInstance(work.getClassLoader(), new Class<?>[] {work},
                    (proxy, method, args) -> switch (method.getName()) {
                        case "execute" -> productName((Connection) args[0]);
                        case "hashCode" -> System.identityHashCode(proxy);
                        case "equals" -> proxy == args[0];
                        default -> "DatabaseProduct.ReturningWork";
                    });
            Method doReturningWork = session.getMethod("doReturningWork", work);
            return (String) doReturningWork.invoke(lender, asker);
        } catch (ReflectiveOperationException | RuntimeException | LinkageError notHibernate) {
            return null;
        }
    }
}
