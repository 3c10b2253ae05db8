package dev.idempotency.it.storms;

import static dev.idempotency.it.support.Http.newKey;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;

import org.junit.jupiter.api.Test;

import dev.idempotency.it.support.Http;
import dev.idempotency.it.support.OnSampleApp;
import dev.idempotency.it.support.PaymentsDatabase;

/**
 * The seeds' "fire identical requests at once" check, on the sample app: 50 concurrent identical
 * requests with one key run the payment exactly once (one row in PostgreSQL's payment table);
 * every other answer is a 409 or a byte-identical replay; never a 5xx.
 */
abstract class StormChecks extends OnSampleApp {

    static final int CONCURRENT = 50;

    /** What one storm produced. */
    record Storm(long executions, long paymentRows, int created, int replays, int conflicts, int others) {
    }

    /** @return a payment order for an order id no other storm uses */
    static String order(long amount, String extra) {
        return "{\"orderId\":\"o-storm-" + UUID.randomUUID() + "\",\"amount\":" + amount + ",\"currency\":\"EUR\"" + extra + "}";
    }

    Storm storm(String key, String body) throws Exception {
        long before = executions();
        List<HttpResponse<byte[]>> answers = http.postAllAtOnce(PAYMENTS, key, body, CONCURRENT);
        byte[] original = answers.stream()
                .filter(r -> r.statusCode() == 201 && r.headers().firstValue("Idempotent-Replayed").isEmpty())
                .map(HttpResponse::body).findFirst().orElseThrow(() -> new AssertionError("no original 201"));
        int created = 0;
        int replays = 0;
        int conflicts = 0;
        int others = 0;
        for (HttpResponse<byte[]> answer : answers) {
            boolean replayed = answer.headers().firstValue("Idempotent-Replayed").isPresent();
            if (answer.statusCode() == 201 && !replayed) {
                created++;
            } else if (answer.statusCode() == 201 && Arrays.equals(answer.body(), original)) {
                replays++;
            } else if (answer.statusCode() == 409) {
                conflicts++;
            } else {
                others++;
                System.out.println(getClass().getSimpleName() + ": unexpected answer " + answer.statusCode() + " "
                        + answer.headers().map() + " " + Http.text(answer));
            }
        }
        // A retry after the storm always gets the original bytes.
        assertThat(http.postJson(PAYMENTS, key, body).body()).isEqualTo(original);
        String orderId = body.replaceAll(".*\"orderId\":\"([^\"]+)\".*", "$1");
        return new Storm(executions() - before, PaymentsDatabase.paymentRows(orderId), created,
                replays, conflicts, others);
    }

    @Test
    void fiftyIdenticalRequestsAtOnceRunThePaymentOnce() throws Exception {
        Storm storm = storm(newKey(), order(500, ",\"delayMs\":300"));

        System.out.println(getClass().getSimpleName() + ": storm(1 key, " + CONCURRENT + " requests): " + storm);
        assertThat(storm.executions()).isEqualTo(1);
        assertThat(storm.paymentRows()).as("rows in PostgreSQL's payment table").isEqualTo(1);
        assertThat(storm.created()).isEqualTo(1);
        assertThat(storm.others()).as("neither 5xx nor a differing body").isZero();
        assertThat(storm.replays() + storm.conflicts()).isEqualTo(CONCURRENT - 1);
    }

    @Test
    void tenKeysEachStormedByFiftyRunTenPayments() throws Exception {
        int replays = 0;
        int conflicts = 0;
        for (int k = 0; k < 10; k++) {
            // no delay: the claim race itself decides
            Storm storm = storm(newKey(), order(100 + k, ""));
            assertThat(storm.executions()).as("key " + k).isEqualTo(1);
            assertThat(storm.paymentRows()).as("key " + k).isEqualTo(1);
            assertThat(storm.created()).isEqualTo(1);
            assertThat(storm.others()).isZero();
            replays += storm.replays();
            conflicts += storm.conflicts();
        }
        System.out.println(getClass().getSimpleName() + ": storm(10 keys x " + CONCURRENT + " requests): 10 executions, " + replays + " replays, "
                + conflicts + " conflicts");
    }
}
