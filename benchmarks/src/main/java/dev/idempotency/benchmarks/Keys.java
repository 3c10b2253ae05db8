package dev.idempotency.benchmarks;

import java.util.UUID;

import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;

/** Distinct keys per benchmark thread: every claim is a first claim. */
@State(Scope.Thread)
public class Keys {

    private final String prefix = UUID.randomUUID().toString();
    private long next;

    /** @return a key never used before, shaped like the library's hashed keys (64 characters) */
    public String next() {
        return prefix + String.format("%028x", next++);
    }
}
