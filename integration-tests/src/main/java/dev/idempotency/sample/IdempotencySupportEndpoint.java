package dev.idempotency.sample;

import jakarta.annotation.security.DeclareRoles;
import jakarta.ws.rs.Path;

import dev.idempotency.jaxrs.IdempotencySupportResource;

/**
 * The library's support look-up, opted in under {@code /api/idempotency-support}: {@code POST .../lookup}
 * for the demo users {@code support} and {@code operator}, {@code POST .../release} for
 * {@code operator} (docs/support-lookup.md).
 */
@Path("idempotency-support")
@DeclareRoles({"idempotency-support", "idempotency-operator"})
public class IdempotencySupportEndpoint extends IdempotencySupportResource {
}
