package dev.idempotency.it.contract;

import static dev.idempotency.it.support.Http.newKey;
import static dev.idempotency.it.support.Http.text;
import static dev.idempotency.it.support.Problems.assertProblem;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;

import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.container.test.api.RunAsClient;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import dev.idempotency.it.resources.AuditedPaymentResource;
import dev.idempotency.it.resources.ByInstanceApplication;
import dev.idempotency.it.resources.DecliningResource;
import dev.idempotency.it.resources.FailingResponseFilter;
import dev.idempotency.it.resources.FailsAfterItsAnswer;
import dev.idempotency.it.support.Deployments;
import dev.idempotency.it.support.OnSampleApp;

/**
 * Parts of the HTTP contract whose resources would change what the contract suite's deployment
 * answers (its OpenAPI document, its response filters), in a deployment of their own:
 * <ul>
 * <li>a resource class that is a CDI bean, served twice: by CDI's instance under {@code /api}, and
 * by an instance the application creates itself under {@code /by-instance}
 * ({@link ByInstanceApplication}; a second JAX-RS application changes the OpenAPI document);</li>
 * <li>an application's response filter that throws on a method's answer
 * ({@link FailingResponseFilter}).</li>
 * </ul>
 */
@ExtendWith(ArquillianExtension.class)
@RunAsClient
class SeparateDeploymentContractIT extends OnSampleApp {

    @Deployment(testable = false)
    static WebArchive deployment() {
        return Deployments.sampleAppOnMemoryStore("by-instance", "").addClasses(DecliningResource.class,
                ByInstanceApplication.class, AuditedPaymentResource.class, FailingResponseFilter.class,
                FailsAfterItsAnswer.class);
    }

    @Test
    void aPaymentWhoseAnswerAnApplicationsResponseFilterFailedOnIsNeverMadeAgain() {
        // The filter runs before the library's and throws; the container answers 500. The library
        // took that for the method's failure and gave the key back: the retry paid again.
        String key = newKey();
        long before = http.count("api/audited-payments/count");

        HttpResponse<byte[]> first = http.postJson("api/audited-payments", key, "{}");
        HttpResponse<byte[]> retry = http.postJson("api/audited-payments", key, "{}");

        assertThat(first.statusCode()).as(text(first)).isEqualTo(500);
        assertProblem(retry, 410, "response-not-stored");
        assertThat(text(retry)).contains("status 201");
        assertThat(http.count("api/audited-payments/count") - before).as("executions").isEqualTo(1);
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
