package dev.idempotency.it.mdb;

import jakarta.ejb.ActivationConfigProperty;
import jakarta.ejb.MessageDriven;
import jakarta.inject.Inject;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.MessageListener;

import dev.idempotency.IdempotencyKey;
import dev.idempotency.Idempotent;
import dev.idempotency.it.consumers.SideEffects;

/** A message-driven bean keyed by the message's JMSMessageID. */
@MessageDriven(activationConfig = {
    @ActivationConfigProperty(propertyName = "resourceAdapter", propertyValue = "loopback-ra"),
    @ActivationConfigProperty(propertyName = "destination", propertyValue = "orders")})
public class OrderMessageDrivenBean implements MessageListener {

    @Inject
    SideEffects effects;

    @Override
    @Idempotent
    public void onMessage(@IdempotencyKey("JMSMessageID") Message message) {
        try {
            effects.record("mdb", message.getLongProperty("delayMs"));
        } catch (JMSException e) {
            throw new IllegalStateException(e);
        }
    }
}
