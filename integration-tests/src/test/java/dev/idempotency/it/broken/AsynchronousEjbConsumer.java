package dev.idempotency.it.broken;

import java.util.concurrent.Future;

import jakarta.ejb.AsyncResult;
import jakarta.ejb.Asynchronous;
import jakarta.ejb.Stateless;

import dev.idempotency.IdempotencyKey;
import dev.idempotency.Idempotent;
import dev.idempotency.it.consumers.OrderMessage;

/** IDEMP0113: an EJB {@code @Asynchronous} method must fail the deployment. */
@Stateless
public class AsynchronousEjbConsumer {

    @Idempotent
    @Asynchronous
    public Future<String> onMessage(@IdempotencyKey("orderNo") OrderMessage message) {
        return new AsyncResult<>(message.orderNo());
    }
}
