package dev.idempotency.state;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.EnumType;
import jakarta.persistence.Enumerated;
import jakarta.persistence.Id;
import jakarta.persistence.Inheritance;
import jakarta.persistence.InheritanceType;
import jakarta.persistence.Table;
import jakarta.persistence.Version;

/**
 * A payment whose kinds each have a table of their own (JOINED inheritance): its state and version
 * are in this table, a kind's columns in another, so a provider updates it over several tables.
 */
@Entity
@Table(name = "guarded_payment")
@Inheritance(strategy = InheritanceType.JOINED)
public class GuardedPayment {

    @Id
    private long id;

    @Enumerated(EnumType.STRING)
    @Column(name = "state", length = 16)
    private OrderState state;

    @Version
    private long version;

    protected GuardedPayment() {
    }

    GuardedPayment(long id, OrderState state) {
        this.id = id;
        this.state = state;
    }

    OrderState state() {
        return state;
    }
}
