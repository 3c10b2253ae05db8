package dev.idempotency.jpa;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/** A business row of the application's own, with a unique reference: its errors are the application's. */
@Entity
@Table(name = "application_order")
public class ApplicationOrder {

    @Id
    private long id;

    @Column(name = "reference", length = 64, nullable = false, unique = true)
    private String reference;

    protected ApplicationOrder() {
    }

    ApplicationOrder(long id, String reference) {
        this.id = id;
        this.reference = reference;
    }
}
