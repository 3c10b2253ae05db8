package dev.idempotency.it.nonhttp;

import static dev.idempotency.it.support.Http.text;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.container.test.api.RunAsClient;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import dev.idempotency.it.resources.orders.LifecycleOrder;
import dev.idempotency.it.resources.orders.LifecycleResource;
import dev.idempotency.it.resources.orders.LifecycleState;
import dev.idempotency.it.support.Deployments;
import dev.idempotency.it.support.OnSampleApp;

/**
 * The state-machine guard in a real application server, on PostgreSQL, with no
 * {@code @Idempotent} in front of it: concurrent requests for one transition change the order
 * once and charge it once; payments racing cancellations end in one of the two, never both; an
 * illegal move is refused and writes nothing; a move to the state held writes nothing.
 */
@ExtendWith(ArquillianExtension.class)
@RunAsClient
class StateMachineIT extends OnSampleApp {

    private static final Pattern FIELD = Pattern.compile("\"(\\w+)\":\"?([\\w-]+)\"?");

    @Deployment(testable = false)
    static WebArchive deployment() {
        return Deployments.sampleAppWithUnit("lifecycle", "", "postgresql/persistence-lifecycle.xml",
                LifecycleOrder.class, LifecycleState.class, LifecycleResource.class);
    }

    private String newOrder() {
        HttpResponse<byte[]> created = http.postJson("api/lifecycle", null, "");
        assertThat(created.statusCode()).as(text(created)).isEqualTo(200);
        return field(text(created), "id");
    }

    private String read(String order, String name) {
        return field(text(http.send(http.request("api/lifecycle/" + order).GET().build())), name);
    }

    private static String field(String json, String name) {
        Matcher matcher = FIELD.matcher(json);
        while (matcher.find()) {
            if (matcher.group(1).equals(name)) {
                return matcher.group(2);
            }
        }
        throw new AssertionError(name + " not in " + json);
    }

    private static long changed(List<HttpResponse<byte[]>> answers) {
        return answers.stream().filter(a -> a.statusCode() == 200 && text(a).contains("\"changed\":true")).count();
    }

    @Test
    void sixteenConcurrentPaymentsChangeTheOrderOnceAndChargeItOnce() throws Exception {
        String order = newOrder();

        List<HttpResponse<byte[]>> answers = http.postEachAtOnce(java.util.Collections.nCopies(16, "api/lifecycle/" + order + "/PAID"));

        assertThat(answers).allSatisfy(a -> assertThat(a.statusCode()).as(text(a)).isEqualTo(200));
        assertThat(changed(answers)).as("one change, fifteen no-ops").isEqualTo(1);
        assertThat(read(order, "state")).isEqualTo("PAID");
        assertThat(read(order, "charges")).as("charged once, in PostgreSQL").isEqualTo("1");
    }

    @Test
    void paymentsRacingCancellationsEndInOneOfThemNeverBoth() throws Exception {
        for (int round = 0; round < 5; round++) {
            String order = newOrder();
            List<String> paths = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                paths.add("api/lifecycle/" + order + "/PAID");
                paths.add("api/lifecycle/" + order + "/CANCELLED");
            }

            List<HttpResponse<byte[]>> answers = http.postEachAtOnce(paths);

            assertThat(changed(answers)).as("round " + round + ": exactly one transition won").isEqualTo(1);
            String state = read(order, "state");
            assertThat(state).isIn("PAID", "CANCELLED");
            assertThat(read(order, "charges")).isEqualTo(state.equals("PAID") ? "1" : "0");
            String loser = state.equals("PAID") ? "CANCELLED" : "PAID";
            assertThat(answers).filteredOn(a -> a.uri().getPath().endsWith("/" + loser))
                    .as("the other move is refused as illegal from " + state)
                    .allSatisfy(a -> assertThat(text(a)).contains("IDEMP0701"));
        }
    }

    @Test
    void anIllegalMoveIsRefusedAndAMoveToTheStateHeldWritesNothing() {
        String order = newOrder();
        String created = read(order, "version");

        HttpResponse<byte[]> refund = http.postJson("api/lifecycle/" + order + "/REFUNDED", null, "");
        assertThat(refund.statusCode()).isEqualTo(409);
        assertThat(text(refund)).contains("IDEMP0701").contains("PENDING").contains("REFUNDED");
        assertThat(read(order, "version")).as("nothing written").isEqualTo(created);

        assertThat(text(http.postJson("api/lifecycle/" + order + "/PAID", null, ""))).contains("\"changed\":true");
        String paid = read(order, "version");
        assertThat(text(http.postJson("api/lifecycle/" + order + "/PAID", null, ""))).contains("\"changed\":false");
        assertThat(read(order, "version")).as("the repeated move wrote nothing").isEqualTo(paid);
        assertThat(text(http.postJson("api/lifecycle/" + order + "/REFUNDED", null, ""))).contains("\"changed\":true");
        assertThat(read(order, "state")).isEqualTo("REFUNDED");
        assertThat(read(order, "charges")).isEqualTo("1");
    }
}
