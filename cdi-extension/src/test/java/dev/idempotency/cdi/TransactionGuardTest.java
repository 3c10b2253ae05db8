package dev.idempotency.cdi;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.idempotency.spi.support.TransactionGuard;

/** The transaction guard finds the server's transactions whatever thread asks first. */
class TransactionGuardTest {

    private final FakeJta jta = FakeJta.INSTANCE;

    @BeforeEach
    void install() {
        FakeJta.install();
    }

    @AfterEach
    void uninstall() {
        jta.forget();
        FakeJta.uninstall();
    }

    @Test
    void aFirstLookUpOnAThreadWithoutTheServersNamingDoesNotSwitchTheTransactionRulesOff() throws Exception {
        TransactionGuard guard = new TransactionGuard();
        AtomicBoolean seenThere = new AtomicBoolean(true);
        Thread unmanaged = new Thread(() -> {
            FakeJta.unmanagedThread();
            seenThere.set(guard.present());
        });
        unmanaged.start();
        unmanaged.join(10_000);

        jta.begin();
        try {
            assertThat(seenThere).as("no transaction on the application's own thread").isFalse();
            assertThat(guard.active()).as("a server thread's transaction is found afterwards").isTrue();
        } finally {
            jta.rollback();
        }
    }

    @Test
    void noTransactionIsKnownAbsentOnlyWhereTheRegistrySaysSo() throws Exception {
        TransactionGuard guard = new TransactionGuard();
        AtomicBoolean presentThere = new AtomicBoolean(true);
        AtomicBoolean knownAbsentThere = new AtomicBoolean(true);
        Thread unmanaged = new Thread(() -> {
            FakeJta.unmanagedThread();
            presentThere.set(guard.present());
            knownAbsentThere.set(guard.knownAbsent());
        });
        unmanaged.start();
        unmanaged.join(10_000);

        assertThat(presentThere).as("none seen on the application's own thread").isFalse();
        assertThat(knownAbsentThere).as("but not known to be none: it cannot be told there").isFalse();
        assertThat(guard.knownAbsent()).as("a server thread without a transaction").isTrue();
        jta.begin();
        try {
            assertThat(guard.knownAbsent()).as("a server thread in a transaction").isFalse();
        } finally {
            jta.rollback();
        }
    }
}
