package dev.idempotency.testing;

import java.util.Map;
import java.util.Set;

import org.eclipse.microprofile.jwt.JsonWebToken;

/** MicroProfile JWTs for tests, as a server makes them the caller's principal. */
public final class Jwts {

    private Jwts() {
    }

    /**
     * @param name the principal's name
     * @param claims the token's claims
     * @return a token with that name and those claims
     */
    public static JsonWebToken jwt(String name, Map<String, Object> claims) {
        return new JsonWebToken() {
            @Override
            public String getName() {
                return name;
            }

            @Override
            public Set<String> getClaimNames() {
                return claims.keySet();
            }

            @Override
            @SuppressWarnings("unchecked")
            public <T> T getClaim(String claimName) {
                return (T) claims.get(claimName);
            }
        };
    }
}
