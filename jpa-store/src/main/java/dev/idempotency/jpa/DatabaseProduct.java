package dev.idempotency.jpa;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Locale;

/**
 * The database behind the store's transactions, as its JDBC driver names it: asked once and
 * shared by what depends on it (the clock's expression, the one-statement claim).
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
            String product = transactions.inNewTransaction(em -> {
                try {
                    return em.unwrap(Connection.class).getMetaData().getDatabaseProductName();
                } catch (SQLException e) {
                    return null;
                }
            });
            return product == null ? null : product.toLowerCase(Locale.ROOT);
        } catch (RuntimeException providerKeepsItsConnection) {
            return null;
        }
    }
}
