/**
 * Server-issued tokens: issuing, the per-principal limit, and checking a token on use.
 * Implementation; not an API.
 */
package dev.idempotency.tokens;
