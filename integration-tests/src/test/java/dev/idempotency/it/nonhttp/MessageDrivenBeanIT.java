package dev.idempotency.it.nonhttp;

import static dev.idempotency.it.support.Http.newKey;
import static dev.idempotency.it.support.Http.number;
import static dev.idempotency.it.support.Http.text;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpRequest;

import org.jboss.shrinkwrap.api.ShrinkWrap;
import org.jboss.shrinkwrap.api.spec.JavaArchive;
import org.jboss.shrinkwrap.api.spec.ResourceAdapterArchive;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.idempotency.it.consumers.OrderMessage;
import dev.idempotency.it.consumers.Redeliveries;
import dev.idempotency.it.consumers.SideEffects;
import dev.idempotency.it.mdb.LoopbackActivationSpec;
import dev.idempotency.it.mdb.LoopbackResourceAdapter;
import dev.idempotency.it.mdb.MdbHarness;
import dev.idempotency.it.mdb.Messages;
import dev.idempotency.it.mdb.OrderMessageDrivenBean;
import dev.idempotency.it.mdb.PropertyKeyedMessageDrivenBean;
import dev.idempotency.it.support.Deployments;
import dev.idempotency.it.support.Http;
import dev.idempotency.it.support.PayaraMicroProcess;

/**
 * Message-driven beans on Payara Micro, fed by a loopback resource adapter (Payara Micro ships no
 * JMS broker): a message redelivered 20 times, 10 of them at once, is handled once, keyed by its
 * JMSMessageID or by a string property.
 */
class MessageDrivenBeanIT {

    static PayaraMicroProcess payara;

    @BeforeAll
    static void start() throws Exception {
        ResourceAdapterArchive adapter = ShrinkWrap.create(ResourceAdapterArchive.class, "loopback-ra.rar")
                .addAsLibrary(ShrinkWrap.create(JavaArchive.class, "loopback-ra.jar")
                        .addClasses(LoopbackResourceAdapter.class, LoopbackActivationSpec.class))
                .setResourceAdapterXML("mdb/ra.xml");
        WebArchive app = Deployments.sampleApp("consumers", "Idempotent/lease=PT10S\n")
                .addClasses(OrderMessage.class, SideEffects.class, Redeliveries.class, Redeliveries.Delivery.class,
                        Messages.class, OrderMessageDrivenBean.class, PropertyKeyedMessageDrivenBean.class,
                        MdbHarness.class);
        // Payara Micro deploys no EARs: the adapter and the application go in side by side.
        payara = PayaraMicroProcess.start("mdb", adapter, app);
    }

    @AfterAll
    static void stop() throws Exception {
        if (payara != null) {
            payara.close();
        }
    }

    Http http;

    @BeforeEach
    void client() throws Exception {
        http = new Http(payara.url("consumers"));
    }

    String deliver(String destination, String messageId, String orderId) {
        return text(http.send(http.request("api/mdb/" + destination + "?messageId=" + messageId + "&orderId=" + orderId
                + "&times=20&concurrent=10&delayMs=300").POST(HttpRequest.BodyPublishers.noBody()).build()));
    }

    @Test
    void aMessageRedeliveredTwentyTimesIsHandledOnceByItsMessageId() {
        String report = deliver("orders", "ID:" + newKey(), "o-1");

        System.out.println("mdb (JMSMessageID): " + report);
        assertThat(number(report, "executions")).as(report).isEqualTo(1);
        assertThat(report).contains("\"errors\":[]");
        assertThat(number(report, "equalResults") + number(report, "conflicts")).isEqualTo(20);
    }

    @Test
    void aMessageKeyedByAStringPropertyIsHandledOncePerProperty() {
        String orderId = newKey();
        String first = deliver("payments", "ID:" + newKey(), orderId);
        String otherMessageSameOrder = deliver("payments", "ID:" + newKey(), orderId);

        System.out.println("mdb (orderId property): " + first + " / " + otherMessageSameOrder);
        assertThat(number(first, "executions")).as(first).isEqualTo(1);
        assertThat(number(otherMessageSameOrder, "executions")).as("another message id, same orderId")
                .isZero();
        assertThat(first).contains("\"errors\":[]");
    }
}
