package dev.idempotency.state;

/**
 * What {@link StateMachine#transition} did.
 *
 * @param <S> the states
 * @param previous the state the entity held when the transition was decided
 * @param current the state it holds now (the target)
 * @param changed {@code true} if this call wrote the change; {@code false} if the entity already
 *     held the target (a duplicate: nothing was written)
 */
public record Transition<S extends Enum<S>>(S previous, S current, boolean changed) {
}
