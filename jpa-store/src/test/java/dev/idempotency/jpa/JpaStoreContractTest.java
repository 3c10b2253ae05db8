package dev.idempotency.jpa;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

import jakarta.persistence.EntityManagerFactory;

import dev.idempotency.jpa.testing.ResourceLocalTransactions;
import dev.idempotency.spi.IdempotencyStore;
import dev.idempotency.spi.contract.IdempotencyStoreContractTest;

/**
 * The store contract on one real database, with the DDL shipped in the jar applied fresh. The
 * store judges every lease and expiry by its {@link DatabaseClock}: the database's time read once,
 * carried forward on a monotonic clock. Here that clock is driven, so that a lease runs out without
 * the test sleeping through it; {@link PostgreSqlStoreContractTest} keeps real time, so that the
 * contract is also kept with the time the database itself moves on.
 */
abstract class JpaStoreContractTest extends IdempotencyStoreContractTest {

    private static EntityManagerFactory factory;
    private static String openedFor;

    /** What the test let pass on the store's clock, in nanoseconds. */
    private final AtomicLong passed = new AtomicLong();

    /** @return whether the store's clock runs in real time only (the test sleeps) */
    boolean realTime() {
        return false;
    }

    /** @return the monotonic clock the store carries the database's time forward on */
    LongSupplier nanoClock() {
        return () -> System.nanoTime() + passed.get();
    }

    @Override
    protected void elapse(Duration duration) throws InterruptedException {
        if (realTime()) {
            super.elapse(duration);
        } else {
            passed.addAndGet(duration.plusMillis(300).toNanos());
        }
    }

    /** @return the JDBC URL of the database */
    abstract String url();

    /** @return its user (no password on these machines) */
    abstract String user();

    /** @return the DDL file under META-INF/idempotency/ddl */
    abstract String ddl();

    /** @return the test persistence unit, so the provider: EclipseLink unless overridden */
    String unit() {
        return "idempotency-test";
    }

    @Override
    protected IdempotencyStore createStore() throws Exception {
        if (!(unit() + " " + url()).equals(openedFor)) {
            if (factory != null) {
                factory.close();
            }
            factory = Databases.fresh(url(), user(), ddl(), unit());
            openedFor = unit() + " " + url();
        }
        ResourceLocalTransactions transactions = new ResourceLocalTransactions(factory);
        return new JpaIdempotencyStore(realTime() ? new JpaRecords(transactions) : new JpaRecords(transactions, nanoClock()));
    }

    /** @return the unit the store under test runs on */
    static EntityManagerFactory factory() {
        return factory;
    }
}
