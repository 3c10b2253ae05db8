package dev.idempotency.cdi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.atomic.AtomicInteger;

import jakarta.enterprise.context.ApplicationScoped;

import org.jboss.weld.environment.se.WeldContainer;
import org.junit.jupiter.api.Test;

import dev.idempotency.IdempotencyKey;
import dev.idempotency.Idempotent;
import dev.idempotency.spi.IdempotencyStoreException;

/** The in-memory store bounded by bytes ({@code idempotency.memory.max-bytes}): full, it runs nothing new. */
class InMemoryStoreBoundTest {

    @ApplicationScoped
    public static class Reports {
        final AtomicInteger executions = new AtomicInteger();

        public int executions() {
            return executions.get();
        }

        @Idempotent
        public String render(@IdempotencyKey String id) {
            executions.incrementAndGet();
            return "r".repeat(6000);
        }
    }

    @Test
    void aStoreFullByBytesRefusesNewKeysRunningNothingAndStillReplays() {
        System.setProperty("idempotency.memory.max-bytes", "8192");
        try (WeldContainer container = TestContainers.weld(Reports.class).initialize()) {
            Reports reports = container.select(Reports.class).get();
            String first = reports.render("r-1");
            reports.render("r-2");

            assertThatThrownBy(() -> reports.render("r-3")).isInstanceOf(IdempotencyStoreException.class)
                    .hasStackTraceContaining("IDEMP0409");
            assertThat(reports.render("r-1")).as("a replay needs no room").isEqualTo(first);
            assertThat(reports.executions()).as("nothing ran for the refused key").isEqualTo(2);
        } finally {
            System.clearProperty("idempotency.memory.max-bytes");
        }
    }
}
