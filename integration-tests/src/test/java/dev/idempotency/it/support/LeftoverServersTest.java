package dev.idempotency.it.support;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.UniqueId;
import org.junit.platform.engine.support.descriptor.AbstractTestDescriptor;
import org.junit.platform.launcher.TestIdentifier;

/**
 * A process of this JVM whose command line names Payara Micro stands in for a server whose boot
 * hung: it is ended after a failed class only.
 */
class LeftoverServersTest {

    private Process server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.destroyForcibly();
        }
    }

    private static TestIdentifier testClass() {
        return TestIdentifier.from(new AbstractTestDescriptor(UniqueId.forEngine("test").append("class", "HungIT"),
                "HungIT") {
            @Override
            public Type getType() {
                return Type.CONTAINER;
            }
        });
    }

    /**
     * A loop, not {@code bash -c "sleep 120"}: bash execs a lone command in its place, and the
     * command line that names Payara Micro was then gone before the listener looked (CI, 2026-12-05).
     */
    private Process hungPayara() throws Exception {
        return new ProcessBuilder("bash", "-c", "while sleep 1; do :; done", "payara-micro-7.2025.1.jar").start();
    }

    @Test
    void aServerLeftRunningAfterAFailedClassIsEnded() throws Exception {
        server = hungPayara();

        new LeftoverServers().executionFinished(testClass(), TestExecutionResult.failed(new AssertionError("hung")));

        assertThat(server.waitFor(5, TimeUnit.SECONDS)).as("ended").isTrue();
    }

    @Test
    void aClassThatPassedOrWasAbortedLeavesItsServersAlone() throws Exception {
        server = hungPayara();

        new LeftoverServers().executionFinished(testClass(), TestExecutionResult.successful());
        new LeftoverServers().executionFinished(testClass(), TestExecutionResult.aborted(null));

        assertThat(server.isAlive()).isTrue();
    }
}
