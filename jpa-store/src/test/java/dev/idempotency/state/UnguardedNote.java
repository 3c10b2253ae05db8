package dev.idempotency.state;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/** An entity the guard cannot move: its state is a string, and it has no version. */
@Entity
@Table(name = "unguarded_note")
public class UnguardedNote {

    @Id
    private long id;

    private String state;

    protected UnguardedNote() {
    }

    UnguardedNote(long id, String state) {
        this.id = id;
        this.state = state;
    }
}
