package dev.idempotency.state;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.EnumType;
import jakarta.persistence.Enumerated;
import jakarta.persistence.Id;
import jakarta.persistence.SecondaryTable;
import jakarta.persistence.Table;
import jakarta.persistence.Version;

/** An invoice whose state is kept in a table of its own beside the invoice's (a secondary table). */
@Entity
@Table(name = "guarded_invoice")
@SecondaryTable(name = "guarded_invoice_state")
public class GuardedInvoice {

    @Id
    private long id;

    @Enumerated(EnumType.STRING)
    @Column(name = "state", length = 16, table = "guarded_invoice_state")
    private OrderState state;

    @Version
    private long version;

    protected GuardedInvoice() {
    }

    GuardedInvoice(long id, OrderState state) {
        this.id = id;
        this.state = state;
    }
}
