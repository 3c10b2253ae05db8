package dev.idempotency.it.support;

import java.nio.file.Path;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import dev.idempotency.jpa.testing.OwnPostgreSql;

/**
 * A PostgreSQL of one test class's own (never this machine's shared one), started before
 * Arquillian deploys (declare this extension first), so that the test may stop it: a database
 * outage. Stopped, by PID, after the class.
 */
public final class OwnPostgreSqlForTests implements BeforeAllCallback, AfterAllCallback {

    private static OwnPostgreSql server;

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        server = OwnPostgreSql.start(Path.of("target", "own-postgresql", context.getRequiredTestClass().getSimpleName(), "data")
                .toAbsolutePath());
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        if (server != null) {
            server.close();
            server = null;
        }
    }

    /** @return the running server */
    public static OwnPostgreSql server() {
        return server;
    }
}
