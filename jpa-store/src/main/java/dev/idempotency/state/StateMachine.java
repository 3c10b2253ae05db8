package dev.idempotency.state;

import java.util.Collections;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityNotFoundException;
import jakarta.persistence.FlushModeType;
import jakarta.persistence.LockModeType;
import jakarta.persistence.NoResultException;
import jakarta.persistence.OptimisticLockException;

/**
 * The allowed transitions of a lifecycle, declared once, and a guarded transition of a JPA
 * entity's state attribute.
 *
 * <pre>{@code
 * static final StateMachine<OrderState> ORDERS = StateMachine.of(OrderState.class)
 *         .allow(PENDING, PAID, CANCELLED)
 *         .allow(PAID, REFUNDED)
 *         .build();
 *
 * @Transactional
 * public Order pay(long id) {
 *     Order order = em.find(Order.class, id);
 *     Transition<OrderState> paid = ORDERS.transition(em, order, PAID);
 *     if (paid.changed()) {
 *         ledger.charge(order); // runs once, whatever the retries
 *     }
 *     return order;
 * }
 * }</pre>
 *
 * <p>{@link #transition} reads the state and the {@code @Version} from the database with a
 * locking read ({@code PESSIMISTIC_WRITE}, held until the transaction ends: it sees the row as
 * committed, not a snapshot, and keeps a provider's update of an entity in several tables from
 * interleaving with another transaction's), then:
 * <ul>
 * <li>the entity already holds the target: nothing is written, the result says
 *     {@code changed() == false} (a duplicate request, even one that slipped past
 *     {@code @Idempotent});</li>
 * <li>the move is not allowed: {@link IllegalTransitionException}, nothing written;</li>
 * <li>else one JPQL {@code UPDATE} sets the state and the next version, on the condition that
 *     both are still what was read. If a concurrent transaction changed the row first, the
 *     decision is made again on what it left: two concurrent {@code PENDING -> PAID} give one
 *     change and one no-op, never two changes.</li>
 * </ul>
 * The entity instance passed is refreshed, so that it shows the state and version now stored.
 * Call it inside the transaction that does the rest of the work, first: a rollback undoes the
 * transition with everything else.
 *
 * <p>The entity needs a single {@code @Id}, a numeric {@code @Version} and the state attribute
 * (an enum of this machine's type, {@code "state"} unless named otherwise); the first transition
 * of each entity class checks them and names what is missing. Thread-safe and meant to be a
 * constant.
 *
 * @param <S> the states
 */
public final class StateMachine<S extends Enum<S>> {

    /** A transition meeting concurrent changes this many times in a row gives up. */
    static final int ROUNDS = 3;

    private final Class<S> states;
    private final String attribute;
    private final Map<S, Set<S>> allowed;
    private final Map<Class<?>, EntityShape> shapes = new ConcurrentHashMap<>();

    private StateMachine(Class<S> states, String attribute, Map<S, Set<S>> allowed) {
        this.states = states;
        this.attribute = attribute;
        this.allowed = allowed;
    }

    /**
     * @param states the enum of the states
     * @param <S> the states
     * @return a builder of its transitions
     */
    public static <S extends Enum<S>> Builder<S> of(Class<S> states) {
        return new Builder<>(Objects.requireNonNull(states, "states"));
    }

    /**
     * @param from a state
     * @param to another
     * @return whether the machine allows the move (staying in a state is not a move)
     */
    public boolean allows(S from, S to) {
        return allowed.get(from).contains(to);
    }

    /**
     * @param from a state
     * @return the states it may move to; empty for a final state
     */
    public Set<S> targets(S from) {
        return allowed.get(from);
    }

    /** @return the entity attribute holding the state */
    public String attribute() {
        return attribute;
    }

    /**
     * Moves a managed entity to a state, at most once: see the class description.
     *
     * @param em the entity manager of the current transaction
     * @param entity the entity, managed by {@code em}
     * @param target the state to move it to
     * @param <E> the entity type
     * @return what was done
     * @throws IllegalTransitionException when the machine does not allow the move
     * @throws EntityNotFoundException when the entity's row is gone
     * @throws OptimisticLockException when concurrent transactions changed the row {@value #ROUNDS}
     *     times in a row
     * @throws jakarta.persistence.PersistenceException when the transaction's pending changes,
     *     flushed first, fail (a constraint of another row), or no transaction is active
     *     ({@code TransactionRequiredException})
     * @throws IllegalArgumentException when the entity is not managed by {@code em}, or its class
     *     lacks what the guard needs (named in the message)
     */
    public <E> Transition<S> transition(EntityManager em, E entity, S target) {
        Objects.requireNonNull(target, "target");
        // The shape first: it names a class that is no entity, which em.contains refuses uncoded.
        EntityShape shape = shapes.computeIfAbsent(entity.getClass(), type -> EntityShape.of(em, type, attribute, states));
        if (!em.contains(entity)) {
            throw new IllegalArgumentException(StateMessages.notManaged(entity));
        }
        Object id = em.getEntityManagerFactory().getPersistenceUnitUtil().getIdentifier(entity);
        // The row as it is before the transaction's pending changes are flushed (a plain read, told
        // not to flush them; null where the instance cannot be read or its row is not written yet):
        // if that flush moves the state, it was set on the instance, and is written unchecked.
        Object[] beforeTheFlush = shape.heldVersion(entity) == null ? null : rowBeforeTheFlush(em, shape, id);
        // The transaction's pending changes first: the refresh below would throw away what the
        // provider has not written yet (FlushModeType.COMMIT writes nothing before these queries).
        em.flush();
        for (int round = 0; round < ROUNDS; round++) {
            Object[] row = lockedRow(em, shape, id);
            if (round == 0 && beforeTheFlush != null) {
                refuseAMoveTheFlushMade(em, shape, entity, id, beforeTheFlush, row);
            }
            S current = states.cast(row[0]);
            if (current == target) {
                // the instance may predate a concurrent transaction's change; locking, to see it
                em.refresh(entity, LockModeType.PESSIMISTIC_WRITE);
                return new Transition<>(current, current, false);
            }
            if (current == null) {
                throw new IllegalArgumentException(StateMessages.noState(shape.name(), id, attribute));
            }
            if (row[1] == null) {
                throw new IllegalArgumentException(StateMessages.noVersion(shape.name(), id));
            }
            if (!allows(current, target)) {
                throw new IllegalTransitionException(shape.name(), id, current, target, targets(current));
            }
            if (move(em, shape, id, current, target, row[1])) {
                em.refresh(entity);
                return new Transition<>(current, target, true);
            }
            if (em.createQuery(shape.unversioned(), Long.class).setParameter("id", id).getSingleResult() > 0) {
                // no concurrent change: a NULL version, which no retry mends
                throw new IllegalArgumentException(StateMessages.noVersion(shape.name(), id));
            }
            // a concurrent transaction changed the row between the read and the write: decide again
        }
        throw new OptimisticLockException(StateMessages.changedConcurrently(shape.name(), id, ROUNDS, target));
    }

    /**
     * A locking read ({@code PESSIMISTIC_WRITE}): it sees the row as committed now (not the
     * transaction's snapshot, on MariaDB), and holds it until the write, which a provider may split
     * into a read of ids and an update by id (an entity in several tables, on Hibernate).
     *
     * @return {state, version}
     */
    private static Object[] lockedRow(EntityManager em, EntityShape shape, Object id) {
        try {
            return em.createQuery(shape.read(), Object[].class).setParameter("id", id)
                    .setLockMode(LockModeType.PESSIMISTIC_WRITE).getSingleResult();
        } catch (NoResultException e) {
            throw new EntityNotFoundException(StateMessages.entityGone(shape.name(), id));
        }
    }

    /**
     * @return {state, version} as the database holds them before the transaction's pending changes
     *     are flushed (no lock: the row's lock is taken after the flush, in the order of the
     *     transaction's writes), or null for a row not written yet (an entity persisted in this
     *     transaction)
     */
    private static Object[] rowBeforeTheFlush(EntityManager em, EntityShape shape, Object id) {
        List<Object[]> rows = em.createQuery(shape.read(), Object[].class).setParameter("id", id)
                .setFlushMode(FlushModeType.COMMIT).getResultList();
        return rows.isEmpty() ? null : rows.get(0);
    }

    /**
     * Refuses a move the flush made: the state changed between the read before the flush and the
     * locked read after it, and the instance holds the row's version, so this transaction's flush
     * wrote the row last (a concurrent transaction's change leaves the instance's version behind;
     * had the instance been changed too, its flush would have failed on that version). The move is
     * written back, under the lock held, and the instance refreshed, so that nothing is committed
     * even if the caller catches the refusal.
     */
    private void refuseAMoveTheFlushMade(EntityManager em, EntityShape shape, Object entity, Object id,
            Object[] beforeTheFlush, Object[] row) {
        Number held = shape.heldVersion(entity);
        if (beforeTheFlush[0] == null || row[0] == beforeTheFlush[0] || row[1] == null || held == null
                || held.longValue() != ((Number) row[1]).longValue()) {
            return;
        }
        move(em, shape, id, row[0], beforeTheFlush[0], row[1]);
        em.refresh(entity, LockModeType.PESSIMISTIC_WRITE);
        throw new IllegalArgumentException(StateMessages.setOnTheInstance(shape.name(), id, row[0], beforeTheFlush[0]));
    }

    /** @return whether the row moved: one guarded {@code UPDATE}, if state and version are still what was read */
    private static boolean move(EntityManager em, EntityShape shape, Object id, Object from, Object to, Object version) {
        return em.createQuery(shape.write()).setParameter("to", to).setParameter("id", id).setParameter("from", from)
                .setParameter("version", version).executeUpdate() == 1;
    }

    /**
     * The transitions of a machine.
     *
     * @param <S> the states
     */
    public static final class Builder<S extends Enum<S>> {

        private final Class<S> states;
        private final Map<S, Set<S>> allowed;
        private String attribute = "state";

        private Builder(Class<S> states) {
            this.states = states;
            this.allowed = new EnumMap<>(states);
            for (S state : states.getEnumConstants()) {
                allowed.put(state, EnumSet.noneOf(states));
            }
        }

        /**
         * @param name the entity attribute holding the state ({@code "state"} by default)
         * @return this builder
         */
        public Builder<S> attribute(String name) {
            if (name == null || name.isBlank()) {
                throw new IllegalArgumentException(StateMessages.stateAttributeUnnamed());
            }
            this.attribute = name.trim();
            return this;
        }

        /**
         * @param from a state
         * @param to the states it may move to
         * @return this builder
         * @throws IllegalArgumentException when a move goes from a state to itself (staying is
         *     never a move: it is the no-op)
         */
        @SafeVarargs
        public final Builder<S> allow(S from, S... to) {
            Objects.requireNonNull(from, "from");
            for (S target : to) {
                if (Objects.requireNonNull(target, "to") == from) {
                    throw new IllegalArgumentException(StateMessages.moveToItself(states.getSimpleName(), from));
                }
                allowed.get(from).add(target);
            }
            return this;
        }

        /** @return the machine */
        public StateMachine<S> build() {
            Map<S, Set<S>> frozen = new EnumMap<>(states);
            allowed.forEach((state, targets) -> frozen.put(state, Collections.unmodifiableSet(EnumSet.copyOf(targets))));
            return new StateMachine<>(states, attribute, Collections.unmodifiableMap(frozen));
        }
    }
}
