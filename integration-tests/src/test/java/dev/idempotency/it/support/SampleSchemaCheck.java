package dev.idempotency.it.support;

import java.util.List;

import org.junit.platform.launcher.LauncherSession;
import org.junit.platform.launcher.LauncherSessionListener;

/**
 * Before any test of a pass deploys the sample, drops the sample's tables of an older schema from
 * this machine's PostgreSQL ({@link PaymentsDatabase#dropTablesOfAnOlderSchema}): the tests share
 * that database from build to build, and a table an earlier build created with another column type
 * would fail every deployment that writes it. Registered for the JUnit Platform launcher
 * ({@code META-INF/services}), so it runs once per test JVM: each failsafe pass and the unit tests.
 */
public final class SampleSchemaCheck implements LauncherSessionListener {

    @Override
    public void launcherSessionOpened(LauncherSession session) {
        try {
            List<String> dropped = PaymentsDatabase.dropTablesOfAnOlderSchema();
            if (!dropped.isEmpty()) {
                System.out.println("the sample's tables of an older schema dropped: " + dropped);
            }
        } catch (IllegalStateException e) {
            // no PostgreSQL (a unit test run without it): the integration tests that need it say so
            System.out.println("the sample's tables were not checked: " + e.getMessage());
        }
    }
}
