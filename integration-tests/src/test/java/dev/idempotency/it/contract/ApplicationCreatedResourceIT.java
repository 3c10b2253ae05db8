package dev.idempotency.it.contract;

import static dev.idempotency.it.support.Http.newKey;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;

import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.container.test.api.RunAsClient;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import dev.idempotency.it.resources.ByInstanceApplication;
import dev.idempotency.it.resources.DecliningResource;
import dev.idempotency.it.support.Deployments;
import dev.idempotency.it.support.OnSampleApp;

/**
 * A resource class that is a CDI bean, served twice: by CDI's instance under {@code /api}, and by
 * an instance the application creates itself under {@code /by-instance}
 * ({@link ByInstanceApplication}). A deployment of its own: a second JAX-RS application changes
 * what the server's OpenAPI document holds, which the contract suite checks.
 */
@ExtendWith(ArquillianExtension.class)
@RunAsClient
class ApplicationCreatedResourceIT extends OnSampleApp {

    @Deployment(testable = false)
    static WebArchive deployment() {
        return Deployments.sampleAppOnMemoryStore("by-instance", "").addClasses(DecliningResource.class,
                ByInstanceApplication.class);
    }

    @Test
    void aDeclineFromAnInstanceTheApplicationCreatedIsStoredLikeAnyOther() {
        // The class is a CDI bean, so the interceptor would tell whether its method ran; but this
        // instance is the application's own (getSingletons()), and its 4xx is the method's answer.
        String key = newKey();
        long before = http.count("by-instance/declining/count");

        HttpResponse<byte[]> first = http.postJson("by-instance/declining", key, "{}");
        HttpResponse<byte[]> retry = http.postJson("by-instance/declining", key, "{}");

        assertThat(first.statusCode()).isEqualTo(402);
        assertThat(retry.statusCode()).isEqualTo(402);
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(retry.body()).as("replayed bytes").isEqualTo(first.body());
        assertThat(http.count("by-instance/declining/count") - before).as("executions").isEqualTo(1);

        String viaCdi = newKey();
        assertThat(http.postJson("api/declining", viaCdi, "{}").statusCode()).isEqualTo(402);
        assertThat(http.postJson("api/declining", viaCdi, "{}").headers().firstValue("Idempotent-Replayed"))
                .as("the same class created by CDI").hasValue("true");
        assertThat(http.count("by-instance/declining/count") - before).as("executions").isEqualTo(2);
    }
}
