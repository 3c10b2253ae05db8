package dev.idempotency.state;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Table;

/** A card payment: its own table joined to {@link GuardedPayment}'s. */
@Entity
@Table(name = "guarded_card_payment")
public class GuardedCardPayment extends GuardedPayment {

    @Column(name = "card", length = 32)
    private String card;

    protected GuardedCardPayment() {
    }

    GuardedCardPayment(long id, OrderState state, String card) {
        super(id, state);
        this.card = card;
    }
}
