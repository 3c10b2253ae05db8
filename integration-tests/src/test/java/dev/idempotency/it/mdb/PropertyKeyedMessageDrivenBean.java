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

/** A message-driven bean keyed by a string property of the message, {@code orderId}. */
@MessageDriven(activationConfig = {
    @ActivationConfigProperty(propertyName = "resourceAdapter", propertyValue = "loopback-ra"),
    @ActivationConfigProperty(propertyName = "destination", propertyValue = "payments")})
public class PropertyKeyedMessageDrivenBean implements MessageListener {

    @Inject
    SideEffects effects;

    @Override
    @Idempotent
    public void onMessage(@IdempotencyKey("orderId") Message message) {
        try {
            effects.record("mdb-property", message.getLongProperty("delayMs"));
        } catch (JMSException e) {
            throw new IllegalStateException(e);
        }
    }
}
