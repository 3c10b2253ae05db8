package dev.idempotency.jpa;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

import org.junit.jupiter.api.Test;

/** The deployment check of the own-transaction bound against the pool the store's unit draws from. */
class PoolSizeCheckTest {

    static final PoolSizeCheck.DeclaredPool PAYMENTS =
            new PoolSizeCheck.DeclaredPool("java:app/jdbc/payments", 8, "com.acme.PaymentsDataSource");

    @Test
    void aBoundAtOrAboveThePoolFailsTheDeploymentNamingTheSettingThePoolTheUnitAndWhatIsAllowed() {
        Optional<String> problem = PoolSizeCheck.problem(8, PAYMENTS, "payments");

        assertThat(problem).hasValueSatisfying(message -> assertThat(message)
                .startsWith("IDEMP0512: library setting idempotency.jpa.max-own-transactions='8' is not allowed")
                .contains("'java:app/jdbc/payments'", "com.acme.PaymentsDataSource", "maxPoolSize=8",
                        "persistence unit 'payments'", "allowed: 1 to 7"));
        assertThat(PoolSizeCheck.problem(16, PAYMENTS, "payments")).isPresent();
        assertThat(PoolSizeCheck.problem(1, new PoolSizeCheck.DeclaredPool("java:app/jdbc/one", 1, "com.acme.One"),
                "one")).hasValueSatisfying(message -> assertThat(message).endsWith("allowed: a pool of at least 2 connections"));
    }

    @Test
    void aBoundBelowThePoolNoDeclaredPoolAndAPoolOfTheServersDefaultSizePass() {
        assertThat(PoolSizeCheck.problem(7, PAYMENTS, "payments")).isEmpty();
        assertThat(PoolSizeCheck.problem(16, null, "payments")).isEmpty();
        assertThat(PoolSizeCheck.problem(16, new PoolSizeCheck.DeclaredPool("java:app/jdbc/other", -1, "com.acme.Other"),
                "other")).isEmpty();
    }

    @Test
    void eachUnitsJtaDataSourceIsReadFromPersistenceXmlWithItsNamespace() throws Exception {
        String xml = """
                <persistence xmlns="https://jakarta.ee/xml/ns/persistence" version="3.0">
                  <persistence-unit name="payments"><jta-data-source> java:app/jdbc/payments </jta-data-source></persistence-unit>
                  <persistence-unit name="reports" transaction-type="RESOURCE_LOCAL">
                    <non-jta-data-source>java:app/jdbc/reports</non-jta-data-source>
                  </persistence-unit>
                </persistence>""";

        assertThat(PoolSizeCheck.dataSources(new ByteArrayInputStream(xml.getBytes(StandardCharsets.UTF_8))))
                .as("the store's work runs in JTA transactions: only jta-data-source counts")
                .containsExactlyEntriesOf(java.util.Map.of("payments", "java:app/jdbc/payments"));
        assertThat(PoolSizeCheck.persistenceUnitDataSources(getClass().getClassLoader()))
                .as("the store's own unit, on this test class path")
                .containsEntry(PoolSizeCheck.OWN_UNIT, "java:comp/DefaultDataSource");
    }
}
