package dev.idempotency;

/**
 * Who shares a key space, see {@link Idempotent#scope()}. In every scope the raw key is hashed
 * together with its scope before it reaches the store.
 */
public enum IdempotencyScope {

    /**
     * A key belongs to the authenticated principal (by name; all anonymous callers share one
     * space) and to the endpoint (the bean class and method). The default: one caller can never
     * replay another caller's response, and one key can be used on two endpoints independently.
     */
    PRINCIPAL,

    /**
     * A key belongs to the endpoint only, whoever calls it. For machine-to-machine calls where
     * several clients (or a client whose credentials rotate) must see one another's keys. Any
     * caller who knows a key can then receive the response stored under it.
     */
    ENDPOINT
}
