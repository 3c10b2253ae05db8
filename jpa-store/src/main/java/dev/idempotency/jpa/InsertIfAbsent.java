package dev.idempotency.jpa;

import java.sql.SQLException;
import java.time.LocalDateTime;
import java.util.Optional;
import java.util.logging.Level;
import java.util.logging.Logger;

import javax.sql.DataSource;

import jakarta.persistence.EntityManager;

import dev.idempotency.spi.IdempotencyStoreException;
import dev.idempotency.spi.support.OwnerTokens;

/**
 * A claim's insert in one round trip where the database has a statement for it: PostgreSQL's
 * {@code INSERT ... ON CONFLICT (record_key) DO NOTHING} inserts the row or, when the key has one,
 * does nothing (no error, the transaction stays usable), so that a first claim needs no read
 * before its insert. Elsewhere the store reads first, then persists the entity (MariaDB's
 * {@code INSERT IGNORE} would also swallow errors other than the duplicate key; H2 and others have
 * no such statement outside compatibility modes). Decided once, on the first claim, from the JDBC
 * product name; a provider that does not hand out its connection ({@code unwrap(Connection.class)})
 * gets the portable path.
 */
final class InsertIfAbsent {

    private static final Logger LOG = Logger.getLogger(InsertIfAbsent.class.getName());

    /** The statement, its parameters numbered in the order they appear (see {@link #JDBC}). */
    static final String POSTGRESQL = "INSERT INTO idempotency_record (record_key, state, fingerprint, owner_token,"
            + " version, lease_end, expires_at, created_at, updated_at) VALUES (?1, ?2, ?3, ?4, 1, ?5, ?6, ?7, ?7)"
            + " ON CONFLICT (record_key) DO NOTHING";

    /** The same statement for JDBC: its parameters bound in the order of their numbers, the last one twice. */
    static final String JDBC = POSTGRESQL.replaceAll("\\?\\d+", "?");

    private final DatabaseProduct product;
    private volatile Boolean available;

    /** @param product the database, shared with the rest of the store */
    InsertIfAbsent(DatabaseProduct product) {
        this.product = product;
    }

    /** For tests: a database of its own. */
    InsertIfAbsent() {
        this(new DatabaseProduct());
    }

    /**
     * Decides on first use whether the database has the statement. Called after the store's
     * clock was read, which asked for the product already.
     *
     * @param transactions where the store's work runs
     */
    void resolve(RecordTransactions transactions) {
        if (available == null) {
            String name = product.name(transactions);
            available = name != null && name.contains("postgresql") && reachesTheEntitysTable(transactions);
        }
    }

    /** @return whether PostgreSQL refused the statement for a table it does not know (SQLState 42P01) */
    private static boolean undefinedTable(Throwable failure) {
        return Causes.find(failure, cause -> cause instanceof SQLException sql && "42P01".equals(sql.getSQLState()))
                .isPresent();
    }

    /** Thrown to end the probe's transaction by a rollback, carrying what it saw. */
    private static final class ProbeSeen extends RuntimeException {
        private static final long serialVersionUID = 1L;
        final boolean seen;

        ProbeSeen(boolean seen) {
            super(null, null, false, false);
            this.seen = seen;
        }
    }

    /** Thrown when the probe's row was written and the entity's own table could not be read. */
    private static final class EntitysTableUnreadable extends RuntimeException {
        private static final long serialVersionUID = 1L;

        EntitysTableUnreadable(RuntimeException cause) {
            super(cause.getMessage(), cause, false, false);
        }
    }

    /**
     * Whether this statement, naming the table unqualified as the statements on the datasource do
     * too, writes the table the entity is mapped to: an application's unit may map its tables to
     * a schema of their own ({@code persistence-unit-defaults} in an {@code orm.xml}) while its
     * connections' {@code search_path} finds another {@code idempotency_record}, or none. A probe
     * row is inserted and looked for through the entity, in a transaction that is rolled back.
     *
     * @return whether the row written by the statement is the entity's; false (logged) when it is
     *     not, or the statement is refused (no such table where the search_path looks, no unique
     *     constraint, no privilege): decided once per start of the application
     * @throws IdempotencyStoreException when the database does not answer: asked again on the next call
     */
    private static boolean reachesTheEntitysTable(RecordTransactions transactions) {
        String probe = "~table-probe~" + OwnerTokens.next();
        LocalDateTime any = LocalDateTime.of(2000, 1, 1, 0, 0);
        try {
            transactions.inNewTransaction(em -> {
                insert(em, probe, "probe", probe, any, any, any);
                long seen;
                try {
                    seen = em.createQuery("SELECT COUNT(r) FROM IdempotencyRecordEntity r WHERE r.key = :key", Long.class)
                            .setParameter("key", probe).getSingleResult();
                } catch (RuntimeException entitysTable) {
                    throw new EntitysTableUnreadable(entitysTable);
                }
                throw new ProbeSeen(seen == 1);
            });
        } catch (OwnTransactionsExhausted busy) {
            throw busy;
        } catch (RuntimeException e) {
            Optional<Throwable> unreadable = Causes.find(e, EntitysTableUnreadable.class::isInstance);
            if (unreadable.isPresent() && DatabaseClock.unknownSql(unreadable.get())) {
                // the statement reached a table; the entity's own is what is missing (or refused)
                LOG.log(Level.WARNING, unreadable.get().getCause(),
                        () -> JpaMessages.entitysTableUnreadable(unreadable.get().getCause().getMessage()));
                return false;
            }
            Optional<Throwable> answer = Causes.find(e, ProbeSeen.class::isInstance);
            if (answer.isPresent()) {
                boolean seen = ((ProbeSeen) answer.get()).seen;
                if (!seen) {
                    LOG.warning(JpaMessages.statementsMissTheEntitysTable("a row they insert is not the entity's:"
                            + " the entity is mapped to a table in another schema than the connection's search_path"));
                }
                return seen;
            }
            if (DatabaseClock.unknownSql(e)) {
                // 42P01: no such table where the search_path looks; another refusal (no unique
                // constraint for ON CONFLICT, no privilege) keeps the store off the statement too
                LOG.log(Level.WARNING, e, () -> JpaMessages.statementsMissTheEntitysTable(undefinedTable(e)
                        ? "the connection's search_path has no idempotency_record table"
                        : "the database refused the statement on the table (" + e.getMessage() + ")"));
                return false;
            }
            throw new IdempotencyStoreException("the database did not answer the probe of the store's table", e);
        }
        throw new IllegalStateException("the probe's transaction ended without its answer");
    }

    /** @return whether {@link #insert} may be used */
    boolean available() {
        return Boolean.TRUE.equals(available);
    }

    /**
     * Inserts an in-progress row for the key unless it has one, in the current transaction.
     *
     * @param leaseEnd when the claim may be taken over by the same request
     * @param expiresAt when the claim's retention ends (the key is free again)
     * @return whether the row was inserted ({@code false}: the key has a row, committed before
     *     this statement or by the concurrent claim it waited for)
     */
    static boolean insert(EntityManager em, String key, String fingerprint, String owner, LocalDateTime now,
            LocalDateTime leaseEnd, LocalDateTime expiresAt) {
        return em.createNativeQuery(POSTGRESQL)
                .setParameter(1, key).setParameter(2, JpaRecords.IN_PROGRESS).setParameter(3, fingerprint)
                .setParameter(4, owner).setParameter(5, leaseEnd).setParameter(6, expiresAt)
                .setParameter(7, now)
                .executeUpdate() == 1;
    }

    /**
     * The same insert, committed on its own on a connection of the datasource in auto-commit mode:
     * what a transaction of the store's own holding only this statement would commit.
     *
     * @param dataSource the store's datasource, on a thread without a transaction
     * @return whether the row was inserted
     * @throws SQLException when the database refused or did not answer: nothing is known to be
     *     inserted, and the claim goes on in a transaction of its own, which meets the row if it was
     */
    static boolean insert(DataSource dataSource, String key, String fingerprint, String owner, LocalDateTime now,
            LocalDateTime leaseEnd, LocalDateTime expiresAt) throws SQLException {
        return AutoCommitStatement.executeUpdate(dataSource, JDBC, insert -> {
            insert.setString(1, key);
            insert.setString(2, JpaRecords.IN_PROGRESS);
            insert.setString(3, fingerprint);
            insert.setString(4, owner);
            insert.setObject(5, leaseEnd);
            insert.setObject(6, expiresAt);
            insert.setObject(7, now);
            insert.setObject(8, now);
        }) == 1;
    }
}
