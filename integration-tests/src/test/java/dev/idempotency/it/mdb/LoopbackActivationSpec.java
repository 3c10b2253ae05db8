package dev.idempotency.it.mdb;

import jakarta.resource.spi.ActivationSpec;
import jakarta.resource.spi.InvalidPropertyException;
import jakarta.resource.spi.ResourceAdapter;

/** The activation config of an MDB on the loopback adapter: the destination it listens on. */
public class LoopbackActivationSpec implements ActivationSpec {

    private String destination;
    private ResourceAdapter resourceAdapter;

    public String getDestination() {
        return destination;
    }

    public void setDestination(String destination) {
        this.destination = destination;
    }

    @Override
    public void validate() throws InvalidPropertyException {
        if (destination == null || destination.isBlank()) {
            throw new InvalidPropertyException("destination is required");
        }
    }

    @Override
    public ResourceAdapter getResourceAdapter() {
        return resourceAdapter;
    }

    @Override
    public void setResourceAdapter(ResourceAdapter resourceAdapter) {
        this.resourceAdapter = resourceAdapter;
    }
}
