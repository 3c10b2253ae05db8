package dev.idempotency.infinispan;

import org.infinispan.protostream.annotations.ProtoFactory;
import org.infinispan.protostream.annotations.ProtoField;

/** One replayable response header of a stored outcome, as a ProtoStream message. */
public final class StoredHeader {

    private final String name;
    private final String value;

    /**
     * @param name the header name
     * @param value one of its values
     */
    @ProtoFactory
    public StoredHeader(String name, String value) {
        this.name = name;
        this.value = value;
    }

    /** @return the header name */
    @ProtoField(number = 1)
    public String getName() {
        return name;
    }

    /** @return the value */
    @ProtoField(number = 2)
    public String getValue() {
        return value;
    }
}
