package dev.idempotency.it.resources;

import jakarta.ws.rs.Path;

import dev.idempotency.jaxrs.IdempotencyTokenResource;

/** The application opting into the token endpoint: one class, one path. */
@Path("tokens")
public class TokensEndpoint extends IdempotencyTokenResource {
}
