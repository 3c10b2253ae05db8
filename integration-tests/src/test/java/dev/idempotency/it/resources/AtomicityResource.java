package dev.idempotency.it.resources;

import java.io.IOException;
import java.io.OutputStream;
import java.lang.annotation.Annotation;
import java.lang.reflect.Type;
import java.util.UUID;

import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.MultivaluedMap;
import jakarta.ws.rs.ext.MessageBodyWriter;
import jakarta.ws.rs.ext.Provider;

import dev.idempotency.Idempotent;
import dev.idempotency.sample.Payment;
import dev.idempotency.sample.PaymentLedger;
import dev.idempotency.sample.PaymentRequest;

/** Payments that go wrong in the ways the JPA store's guarantee is about. */
@Path("atomicity")
@RequestScoped
public class AtomicityResource {

    static final String RECEIPT = "application/x-receipt";

    @Inject
    PaymentLedger ledger;

    /**
     * A payment whose response is lost after its transaction committed: the writer of its receipt
     * fails, as a node stopping between the commit and storing the response would. The work must
     * never run again.
     */
    @POST
    @Path("receipt")
    @Idempotent
    @Transactional
    @Consumes(MediaType.APPLICATION_JSON)
    @Produces(RECEIPT)
    public Receipt receipt(PaymentRequest request) {
        pay(request);
        return new Receipt();
    }

    /**
     * Work without a transaction whose answer cannot be written (its writer fails): the work was
     * done, so it must never run again, though no transaction marked it executed.
     */
    @POST
    @Path("receipt-without-transaction")
    @Idempotent
    @Consumes(MediaType.APPLICATION_JSON)
    @Produces(RECEIPT)
    public Receipt receiptWithoutTransaction(PaymentRequest request) {
        ledger.countExecution();
        return new Receipt();
    }

    /**
     * A payment whose first attempt inserts its row and then takes {@code delayMs}, longer than
     * its lease, so that a retry takes the key over; later attempts are quick.
     */
    @POST
    @Path("slow-first")
    @Idempotent
    @Transactional
    @Consumes(MediaType.APPLICATION_JSON)
    @Produces(MediaType.APPLICATION_JSON)
    public Payment slowFirst(PaymentRequest request) throws InterruptedException {
        Payment payment = pay(request);
        if (ledger.attempt(request.getOrderId()) == 1) {
            Thread.sleep(request.getDelayMs());
        }
        return payment;
    }

    /**
     * A payment whose id is its order id: a second order with that id (under another key)
     * violates the payment table's primary key, the application's own constraint, when the
     * persistence context is flushed inside the transaction.
     */
    @POST
    @Path("fixed-id")
    @Idempotent
    @Transactional
    @Consumes(MediaType.APPLICATION_JSON)
    @Produces(MediaType.APPLICATION_JSON)
    public Payment fixedId(PaymentRequest request) {
        ledger.countExecution();
        String id = request.getOrderId().length() > 36 ? request.getOrderId().substring(0, 36) : request.getOrderId();
        Payment payment = new Payment(id, request.getOrderId(), request.getAmount(), request.getCurrency(), "anonymous");
        ledger.add(payment);
        return payment;
    }

    private Payment pay(PaymentRequest request) {
        ledger.countExecution();
        Payment payment = new Payment(UUID.randomUUID().toString(), request.getOrderId(), request.getAmount(),
                request.getCurrency(), "anonymous");
        ledger.add(payment);
        return payment;
    }

    /** A receipt nobody can write. */
    public static class Receipt {
    }

    /** Fails like a broken connection. */
    @Provider
    @Produces(RECEIPT)
    public static class BrokenWriter implements MessageBodyWriter<Receipt> {

        @Override
        public boolean isWriteable(Class<?> type, Type genericType, Annotation[] annotations, MediaType mediaType) {
            return Receipt.class.isAssignableFrom(type);
        }

        @Override
        public void writeTo(Receipt receipt, Class<?> type, Type genericType, Annotation[] annotations,
                MediaType mediaType, MultivaluedMap<String, Object> headers, OutputStream entityStream)
                throws IOException, WebApplicationException {
            throw new IOException("the connection broke while the receipt was written");
        }
    }
}
