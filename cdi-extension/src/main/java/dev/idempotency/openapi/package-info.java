/**
 * The HTTP contract in the application's MicroProfile OpenAPI document: every {@code @Idempotent}
 * operation gets its {@code Idempotency-Key} header, its problem responses and its retention,
 * with no annotation to write. Only used where the server has MicroProfile OpenAPI.
 */
package dev.idempotency.openapi;
