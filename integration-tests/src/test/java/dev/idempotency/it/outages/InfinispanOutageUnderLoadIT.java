package dev.idempotency.it.outages;

import java.net.URL;

import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.container.test.api.RunAsClient;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.extension.ExtendWith;

import dev.idempotency.it.support.Deployments;
import dev.idempotency.it.support.InfinispanForTests;
import dev.idempotency.it.support.PostgreSqlDataSource;

/**
 * The Infinispan server stopped (SIGTERM) under load and started again on its data: the cache is
 * configured with a file store, so the records of completed payments survive the restart. (A
 * cache without persistence forgets every record when its last node stops: a retry then pays
 * again. See README.)
 */
@ExtendWith({InfinispanForTests.class, ArquillianExtension.class})
@RunAsClient
class InfinispanOutageUnderLoadIT implements OutageUnderLoadChecks {

    static final String PERSISTENT_CACHE = "<distributed-cache mode=\"SYNC\" owners=\"2\">"
            + "<encoding media-type=\"application/x-protostream\"/>"
            + "<persistence passivation=\"false\"><file-store shared=\"false\" preload=\"true\" purge=\"false\"/></persistence>"
            + "</distributed-cache>";

    @ArquillianResource
    URL url;

    @Deployment(testable = false)
    static WebArchive deployment() {
        return Deployments.sampleAppOnInfinispan("outage-load-ispn", String.join("\n",
                "idempotency.infinispan.cache-configuration=" + PERSISTENT_CACHE,
                "Idempotent/lease=PT5S"), InfinispanForTests.clientProperties());
    }

    @Override
    public URL url() {
        return url;
    }

    @Override
    public String store() {
        return "Infinispan";
    }

    @Override
    public void stopStore() throws Exception {
        InfinispanForTests.stop();
    }

    @Override
    public void startStore() throws Exception {
        InfinispanForTests.restartKeepingData();
    }

    @Override
    public String paymentsDatabase() {
        return PostgreSqlDataSource.URL;
    }
}
