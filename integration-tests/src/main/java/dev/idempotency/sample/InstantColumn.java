package dev.idempotency.sample;

import java.sql.Timestamp;
import java.time.Instant;

import jakarta.persistence.AttributeConverter;
import jakarta.persistence.Converter;

/**
 * An {@link Instant} in a {@code TIMESTAMP} column, the same on every provider. Left to itself, the
 * EclipseLink of Payara Micro 6 kept an {@code Instant} as a serialized object in a {@code BYTEA}
 * column in some deployments and as a timestamp in others, and Hibernate as a timestamp: whichever
 * created the table first decided its type, and the others then failed on it.
 */
@Converter
public class InstantColumn implements AttributeConverter<Instant, Timestamp> {

    @Override
    public Timestamp convertToDatabaseColumn(Instant instant) {
        return instant == null ? null : Timestamp.from(instant);
    }

    @Override
    public Instant convertToEntityAttribute(Timestamp timestamp) {
        return timestamp == null ? null : timestamp.toInstant();
    }
}
