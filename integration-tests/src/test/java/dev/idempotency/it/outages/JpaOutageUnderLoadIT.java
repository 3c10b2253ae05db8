package dev.idempotency.it.outages;

import java.net.URL;

import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.container.test.api.RunAsClient;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.extension.ExtendWith;

import dev.idempotency.it.support.Deployments;
import dev.idempotency.it.support.OwnPostgreSqlForTests;

/**
 * PostgreSQL, holding both the payments and the JPA store's records, stopped (fast shutdown)
 * under load and started again: a PostgreSQL of the test's own, never the machine's shared one.
 */
@ExtendWith({OwnPostgreSqlForTests.class, ArquillianExtension.class})
@RunAsClient
class JpaOutageUnderLoadIT implements OutageUnderLoadChecks {

    @ArquillianResource
    URL url;

    @Deployment(testable = false)
    static WebArchive deployment() {
        return Deployments.sampleAppOnDatabase("outage-load-jpa", "Idempotent/lease=PT5S\n",
                OwnPostgreSqlForTests.server().jdbcUrl());
    }

    @Override
    public URL url() {
        return url;
    }

    @Override
    public String store() {
        return "JPA on PostgreSQL";
    }

    @Override
    public void stopStore() throws Exception {
        OwnPostgreSqlForTests.server().stop();
    }

    @Override
    public void startStore() throws Exception {
        OwnPostgreSqlForTests.server().restart();
    }

    @Override
    public String paymentsDatabase() {
        return OwnPostgreSqlForTests.server().jdbcUrl();
    }
}
