package dev.idempotency.state;

import java.util.Set;

import dev.idempotency.exceptions.IdempotencyException;

/** A transition the {@link StateMachine} does not allow: nothing was written. */
public class IllegalTransitionException extends IdempotencyException {

    private static final long serialVersionUID = 1L;

    /** @serial the entity's name */
    private final String entity;
    private final transient Object id;
    /** @serial the state the entity holds */
    private final String from;
    /** @serial the state asked for */
    private final String to;

    IllegalTransitionException(String entity, Object id, Enum<?> from, Enum<?> to, Set<? extends Enum<?>> allowed) {
        super(StateMessages.illegalTransition(entity, id, from, to, allowed));
        this.entity = entity;
        this.id = id;
        this.from = from.name();
        this.to = to.name();
    }

    /** @return the entity's name */
    public String entity() {
        return entity;
    }

    /** @return the entity's id */
    public Object id() {
        return id;
    }

    /** @return the state it holds */
    public String from() {
        return from;
    }

    /** @return the state asked for */
    public String to() {
        return to;
    }
}
