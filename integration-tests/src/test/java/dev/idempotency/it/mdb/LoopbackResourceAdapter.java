package dev.idempotency.it.mdb;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import javax.transaction.xa.XAResource;

import jakarta.jms.Message;
import jakarta.jms.MessageListener;
import jakarta.resource.ResourceException;
import jakarta.resource.spi.ActivationSpec;
import jakarta.resource.spi.BootstrapContext;
import jakarta.resource.spi.ResourceAdapter;
import jakarta.resource.spi.endpoint.MessageEndpoint;
import jakarta.resource.spi.endpoint.MessageEndpointFactory;

/**
 * A minimal inbound resource adapter standing in for a JMS broker, which Payara Micro does not
 * ship: tests hand it a message and it delivers it to the message-driven beans listening on the
 * destination, through the container, as a broker's adapter would (redeliveries included).
 */
public class LoopbackResourceAdapter implements ResourceAdapter {

    private static final Map<String, MessageEndpointFactory> ENDPOINTS = new ConcurrentHashMap<>();

    /**
     * Delivers a message once to the MDB listening on the destination.
     *
     * @param destination the destination name of the MDB's activation config
     * @param message the message
     * @throws Exception what the delivery threw
     */
    public static void deliver(String destination, Message message) throws Exception {
        MessageEndpointFactory factory = ENDPOINTS.get(destination);
        if (factory == null) {
            throw new IllegalStateException("no MDB listens on " + destination + "; active: " + ENDPOINTS.keySet());
        }
        MessageEndpoint endpoint = factory.createEndpoint(null);
        try {
            ((MessageListener) endpoint).onMessage(message);
        } finally {
            endpoint.release();
        }
    }

    @Override
    public void start(BootstrapContext context) {
    }

    @Override
    public void stop() {
        ENDPOINTS.clear();
    }

    @Override
    public void endpointActivation(MessageEndpointFactory factory, ActivationSpec spec) throws ResourceException {
        ENDPOINTS.put(((LoopbackActivationSpec) spec).getDestination(), factory);
    }

    @Override
    public void endpointDeactivation(MessageEndpointFactory factory, ActivationSpec spec) {
        ENDPOINTS.remove(((LoopbackActivationSpec) spec).getDestination(), factory);
    }

    @Override
    public XAResource[] getXAResources(ActivationSpec[] specs) {
        return new XAResource[0];
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof LoopbackResourceAdapter;
    }

    @Override
    public int hashCode() {
        return LoopbackResourceAdapter.class.hashCode();
    }
}
