package dev.idempotency.jpa;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import org.junit.jupiter.api.Test;

/** The deployment check of the own-transaction bound against a pool the application declares. */
class PoolSizeCheckTest {

    static final PoolSizeCheck.DeclaredPool PAYMENTS =
            new PoolSizeCheck.DeclaredPool("java:app/jdbc/payments", 8, "com.acme.PaymentsDataSource");

    @Test
    void aBoundAtOrAboveThePoolOfAUnitsDataSourceFailsTheDeploymentNamingTheSettingThePoolAndWhatIsAllowed() {
        Optional<String> problem = PoolSizeCheck.problem(8, List.of(PAYMENTS), Set.of("java:app/jdbc/payments"));

        assertThat(problem).hasValueSatisfying(message -> assertThat(message)
                .startsWith("IDEMP0512: library setting idempotency.jpa.max-own-transactions='8' is not allowed")
                .contains("'java:app/jdbc/payments'", "com.acme.PaymentsDataSource", "maxPoolSize=8", "allowed: 1 to 7"));
        assertThat(PoolSizeCheck.problem(16, List.of(PAYMENTS), Set.of("java:app/jdbc/payments"))).isPresent();
    }

    @Test
    void aBoundBelowThePoolAPoolNoUnitUsesAndAPoolOfTheServersDefaultSizePass() {
        PoolSizeCheck.DeclaredPool defaultSize = new PoolSizeCheck.DeclaredPool("java:app/jdbc/other", -1, "com.acme.Other");

        assertThat(PoolSizeCheck.problem(7, List.of(PAYMENTS), Set.of("java:app/jdbc/payments"))).isEmpty();
        assertThat(PoolSizeCheck.problem(16, List.of(PAYMENTS), Set.of("java:comp/DefaultDataSource"))).isEmpty();
        assertThat(PoolSizeCheck.problem(16, List.of(defaultSize), Set.of("java:app/jdbc/other"))).isEmpty();
    }

    @Test
    void theUnitsDataSourcesAreReadFromPersistenceXmlWithItsNamespace() throws Exception {
        String xml = """
                <persistence xmlns="https://jakarta.ee/xml/ns/persistence" version="3.0">
                  <persistence-unit name="payments"><jta-data-source> java:app/jdbc/payments </jta-data-source></persistence-unit>
                  <persistence-unit name="reports" transaction-type="RESOURCE_LOCAL">
                    <non-jta-data-source>java:app/jdbc/reports</non-jta-data-source>
                  </persistence-unit>
                </persistence>""";

        assertThat(PoolSizeCheck.dataSources(new ByteArrayInputStream(xml.getBytes(StandardCharsets.UTF_8))))
                .containsExactly("java:app/jdbc/payments", "java:app/jdbc/reports");
        assertThat(PoolSizeCheck.persistenceUnitDataSources(getClass().getClassLoader()))
                .as("the store's own unit, on this test class path").contains("java:comp/DefaultDataSource");
    }
}
