package dev.idempotency.it.nonhttp;

import static dev.idempotency.it.nonhttp.LocalMessageTableIT.IMPORTS;
import static dev.idempotency.it.nonhttp.LocalMessageTableIT.order;
import static dev.idempotency.it.support.Http.newKey;
import static dev.idempotency.it.support.Http.text;
import static dev.idempotency.it.support.PaymentsDatabase.importMessages;
import static dev.idempotency.it.support.Problems.assertProblem;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.util.UUID;

import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.container.test.api.RunAsClient;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import dev.idempotency.it.support.Deployments;
import dev.idempotency.it.support.Http;
import dev.idempotency.it.support.OnSampleApp;

/**
 * The local message table remembers a key longer than the idempotency record (the row is unique
 * per caller and key). Once the record's ttl ended, a retry of the same import found its row and
 * got its {@code 202}, as it should; but another import sent with the same key got that
 * {@code 202} too, naming the first import, and was never queued. It is now refused as the
 * library refuses it within the ttl: {@code 422 key-reused}, nothing queued.
 */
@ExtendWith(ArquillianExtension.class)
@RunAsClient
class ImportKeyReuseIT extends OnSampleApp {

    @Deployment(testable = false)
    static WebArchive deployment() {
        return Deployments.sampleApp("imports-reuse", String.join("\n",
                "sample.imports.workers=1",
                "sample.imports.poll-interval=PT0.2S",
                "dev.idempotency.sample.imports.ImportResource/submit/Idempotent/ttl=PT2S",
                "dev.idempotency.sample.imports.ImportResource/submit/Idempotent/lease=PT2S"));
    }

    @Test
    void anotherImportUnderAKeyTheRecordForgotIsRefusedAndARetryStillFindsItsRow() throws Exception {
        String key = newKey();
        String first = order("o-reuse-" + UUID.randomUUID(), 0);
        HttpResponse<byte[]> accepted = http.postJson(IMPORTS, key, first);
        assertThat(accepted.statusCode()).as(text(accepted)).isEqualTo(202);
        Thread.sleep(3_000); // past the idempotency record's ttl

        HttpResponse<byte[]> another = http.postJson(IMPORTS, key, order("o-reuse-" + UUID.randomUUID(), 0));
        assertProblem(another, 422, "key-reused");
        assertThat(importMessages(key)).as("the other import is not queued under the first one's row").isEqualTo(1);

        Thread.sleep(3_000); // the refusal kept nothing: past the ttl of anything it might have stored
        HttpResponse<byte[]> retry = http.postJson(IMPORTS, key, first);
        assertThat(retry.statusCode()).as(text(retry)).isEqualTo(202);
        assertThat(Http.location(retry)).as("the retry of the first import finds its row").isEqualTo(Http.location(accepted));
    }
}
