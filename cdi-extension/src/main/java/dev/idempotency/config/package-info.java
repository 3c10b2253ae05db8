/**
 * The deployment model, read and checked once at deployment: library settings, each endpoint's
 * resolved policy and identity, which methods are JAX-RS resource methods. Implementation; not an
 * API.
 */
package dev.idempotency.config;
