package dev.idempotency.it.consumers;

import java.util.List;

/**
 * What a consumer returns; {@code sequence} differs per execution, so a replay is recognisable.
 *
 * @param orderNo the order
 * @param sequence the consumer's execution number
 * @param notes generic content, to prove generic types round-trip
 */
public record Receipt(String orderNo, int sequence, List<String> notes) {
}
