package dev.idempotency.state;

import java.util.List;
import java.util.Set;

/**
 * The coded messages of the state-machine guard, range 07xx: every one of them is written here,
 * and docs/troubleshooting.md explains each. Codes are stable: users search for them.
 * docs/message-codes.md lists which module owns which range.
 *
 * <p>{@code IDEMP0702} (a machine or an entity the guard cannot work with) covers several
 * situations: each has a method of its own, and all of them go through {@link #cannotGuard}, which
 * alone writes the code.
 */
final class StateMessages {

    private StateMessages() {
    }

    /** IDEMP0701: the machine does not allow the move asked for; nothing was written. */
    static String illegalTransition(String entity, Object id, Enum<?> from, Enum<?> to, Set<? extends Enum<?>> allowed) {
        return "IDEMP0701: " + entity + " " + id + " cannot go from " + from + " to " + to + "; allowed from " + from + ": "
                + (allowed.isEmpty() ? "none (a final state)" : allowed);
    }

    /** IDEMP0702: the machine's declaration, the entity's class or its row lacks what the guard needs. */
    static String cannotGuard(String problem) {
        return "IDEMP0702: " + problem;
    }

    /** IDEMP0702: {@code StateMachine.Builder.attribute} was given no name. */
    static String stateAttributeUnnamed() {
        return cannotGuard("the state attribute needs a name");
    }

    /** IDEMP0702: {@code allow(from, from)}, a move from a state to itself. */
    static String moveToItself(String states, Enum<?> from) {
        return cannotGuard(states + "." + from + " -> " + from
                + " is not a transition: moving to the state held is always a no-op");
    }

    /** IDEMP0702: the entity's row holds no state. */
    static String noState(String entity, Object id, String attribute) {
        return cannotGuard(entity + " " + id + " has no " + attribute + "; give every row a state");
    }

    /** IDEMP0702: the entity's row holds no version, so no guarded update can match it. */
    static String noVersion(String entity, Object id) {
        return cannotGuard(entity + " " + id + " has no version (its row's version is NULL): give every row a version,"
                + " which guards every write");
    }

    /** IDEMP0702: the entity's class lacks a single id, a numeric version or the state attribute. */
    static String entityLacks(String entity, String javaType, List<String> problems) {
        return cannotGuard("the state-machine guard cannot move entity " + entity + " (" + javaType + "); it needs "
                + String.join(", ", problems));
    }

    /** IDEMP0702: the instance given is of no entity class of the persistence unit. */
    static String notAnEntity(String instanceClass) {
        return cannotGuard(instanceClass + " is not an entity of this persistence unit");
    }

    /** IDEMP0703: concurrent transactions changed the row every round; the transaction should be retried. */
    static String changedConcurrently(String entity, Object id, int rounds, Enum<?> target) {
        return "IDEMP0703: " + entity + " " + id + " was changed by concurrent transactions " + rounds
                + " times while moving it to " + target + "; retry the transaction";
    }

    /** IDEMP0704: the entity passed is not managed by the EntityManager passed. */
    static String notManaged(Object entity) {
        return "IDEMP0704: the state-machine guard needs the entity as managed by the EntityManager it is given"
                + " (em.find or em.merge first): " + entity;
    }

    /**
     * IDEMP0706: the flush of the transaction's pending changes moved the state: it was set on the
     * instance, not through the guard; the move was written back, and the state stays as it was.
     */
    static String setOnTheInstance(String entity, Object id, Object set, Object stored) {
        return "IDEMP0706: " + entity + " " + id + "'s state was set to " + set + " on the instance (its row held " + stored
                + "), not through the guard: the flush before the guard's read would have written it unchecked. Move it"
                + " only with StateMachine.transition; the move was written back (the transaction's other changes stay)"
                + " and the instance refreshed: the row holds " + stored + " as before";
    }

    /** IDEMP0705: the entity's row is gone. */
    static String entityGone(String entity, Object id) {
        return "IDEMP0705: " + entity + " " + id + " is gone";
    }
}
