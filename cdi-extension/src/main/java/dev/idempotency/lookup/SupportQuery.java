package dev.idempotency.lookup;

/**
 * One support question: the record of this key, sent by this caller, to this endpoint.
 *
 * @param endpoint the endpoint's identity, as events and logs name it ({@code fqcn#method(...)} or
 *     its {@code name})
 * @param caller the principal's name, or {@code null} for the key space of anonymous callers
 * @param tenant the tenant, in the tenant scopes; ignored in the others
 * @param key the key as the library read it: the header's value (an sf-string without its quotes),
 *     the JSON member's value, or the {@code @IdempotencyKey} argument
 */
public record SupportQuery(String endpoint, String caller, String tenant, String key) {
}
