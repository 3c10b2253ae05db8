package dev.idempotency.sample;

import java.nio.charset.StandardCharsets;
import java.util.Base64;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.security.enterprise.AuthenticationStatus;
import jakarta.security.enterprise.authentication.mechanism.http.HttpAuthenticationMechanism;
import jakarta.security.enterprise.authentication.mechanism.http.HttpMessageContext;
import jakarta.security.enterprise.credential.UsernamePasswordCredential;
import jakarta.security.enterprise.identitystore.CredentialValidationResult;
import jakarta.security.enterprise.identitystore.IdentityStoreHandler;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

/**
 * HTTP Basic where bad credentials are never anonymous. Jakarta Security's built-in Basic
 * mechanism ({@code @BasicAuthenticationMechanismDefinition}) lets a request to an unprotected
 * resource go on unauthenticated when its credentials do not validate: {@code curl -u alice:wrong}
 * would then pay as an anonymous caller, in the key space all anonymous callers share. This one:
 * <ul>
 * <li>no {@code Authorization} header: anonymous (challenged only where a resource is protected);</li>
 * <li>Basic credentials the identity stores validate ({@link DemoIdentityStore}, and any other
 * store of the application): that caller;</li>
 * <li>anything else (a wrong password, an unknown user, a malformed header, another scheme):
 * {@code 401} with {@code WWW-Authenticate: Basic realm="payments"}, and nothing runs.</li>
 * </ul>
 */
@ApplicationScoped
public class DemoAuthenticationMechanism implements HttpAuthenticationMechanism {

    /** The challenge of this mechanism; the library's own 401s send the same (idempotency.authentication-challenge). */
    static final String CHALLENGE = "Basic realm=\"payments\"";

    @Inject
    IdentityStoreHandler identityStores;

    @Override
    public AuthenticationStatus validateRequest(HttpServletRequest request, HttpServletResponse response,
            HttpMessageContext context) {
        String authorization = request.getHeader("Authorization");
        if (authorization == null || authorization.isBlank()) {
            return context.isProtected() ? challenge(response, context) : context.doNothing();
        }
        UsernamePasswordCredential credential = basic(authorization);
        if (credential != null) {
            CredentialValidationResult result = identityStores.validate(credential);
            if (result.getStatus() == CredentialValidationResult.Status.VALID) {
                return context.notifyContainerAboutLogin(result);
            }
        }
        return refuse(response, context);
    }

    /**
     * Bad credentials: {@code 401} and the challenge, answered by the mechanism itself
     * ({@code SEND_CONTINUE}: the container sends this response and invokes nothing). Not
     * {@code responseUnauthorized()} ({@code SEND_FAILURE}): Open Liberty lets a request to an
     * unprotected resource go on anonymously after a {@code SEND_FAILURE} (its issue #2837). Liberty
     * writes its own challenge on {@code SEND_CONTINUE}, with the realm it finds under
     * {@code com.ibm.wsspi.security.cred.realm}; the other servers ignore that entry.
     */
    private static AuthenticationStatus refuse(HttpServletResponse response, HttpMessageContext context) {
        response.setStatus(HttpServletResponse.SC_UNAUTHORIZED);
        response.setHeader("WWW-Authenticate", CHALLENGE);
        context.getMessageInfo().getMap().put("com.ibm.wsspi.security.cred.realm", "payments");
        return AuthenticationStatus.SEND_CONTINUE;
    }

    private static AuthenticationStatus challenge(HttpServletResponse response, HttpMessageContext context) {
        response.setHeader("WWW-Authenticate", CHALLENGE);
        return context.responseUnauthorized();
    }

    /** @return the credential of a well-formed {@code Basic} header, else {@code null} */
    static UsernamePasswordCredential basic(String authorization) {
        String[] parts = authorization.trim().split("\\s+", 2);
        if (parts.length != 2 || !parts[0].equalsIgnoreCase("Basic")) {
            return null;
        }
        String decoded;
        try {
            decoded = new String(Base64.getDecoder().decode(parts[1].trim()), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            return null;
        }
        int colon = decoded.indexOf(':');
        return colon <= 0 ? null : new UsernamePasswordCredential(decoded.substring(0, colon), decoded.substring(colon + 1));
    }
}
