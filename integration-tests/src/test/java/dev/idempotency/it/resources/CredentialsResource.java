package dev.idempotency.it.resources;

import jakarta.enterprise.context.RequestScoped;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.NewCookie;
import jakarta.ws.rs.core.Response;

import dev.idempotency.Idempotent;

/**
 * An answer carrying every kind of credential a response can: a session cookie, authorization
 * headers and challenges, besides a harmless header that the test configures as replayable.
 */
@Path("credentials")
@RequestScoped
public class CredentialsResource {

    /** @return 201 with credentials in its headers */
    @POST
    @Idempotent
    @Produces(MediaType.APPLICATION_JSON)
    public Response issue() {
        return Response.status(201)
                .cookie(new NewCookie.Builder("SESSION").value("s3cr3t-session").path("/").httpOnly(true).build())
                .header("Authorization", "Bearer s3cr3t-token")
                .header("Proxy-Authorization", "Basic czNjcjN0")
                .header("WWW-Authenticate", "Bearer realm=\"payments\"")
                .header("Proxy-Authenticate", "Basic realm=\"proxy\"")
                .header("X-Request-Note", "kept")
                .entity("{\"issued\":true}")
                .build();
    }
}
