package dev.idempotency.sample;

import java.util.Map;
import java.util.Set;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.security.enterprise.credential.Credential;
import jakarta.security.enterprise.credential.UsernamePasswordCredential;
import jakarta.security.enterprise.identitystore.CredentialValidationResult;
import jakarta.security.enterprise.identitystore.IdentityStore;

/**
 * The demo users for HTTP Basic ({@link DemoAuthenticationMechanism}): the customers {@code alice/alice},
 * {@code bob/bob} and {@code carol/carol}; {@code support/support}, who may use the support look-up
 * ({@link IdempotencySupportEndpoint}), and {@code operator/operator}, who may also release an
 * abandoned claim through it. No resource is protected: anonymous calls are allowed,
 * callers who send valid credentials are authenticated, so that idempotency keys are scoped to
 * them, and callers who send invalid ones get {@code 401}.
 */
@ApplicationScoped
public class DemoIdentityStore implements IdentityStore {

    private static final Map<String, String> USERS = Map.of("alice", "alice", "bob", "bob", "carol", "carol",
            "support", "support", "operator", "operator");

    /** The groups of each user; the servers map groups to roles of the same name. */
    private static final Map<String, Set<String>> GROUPS = Map.of(
            "support", Set.of("idempotency-support"),
            "operator", Set.of("idempotency-support", "idempotency-operator"));

    @Override
    public CredentialValidationResult validate(Credential credential) {
        if (credential instanceof UsernamePasswordCredential login
                && login.getPasswordAsString().equals(USERS.get(login.getCaller()))) {
            return new CredentialValidationResult(login.getCaller(), GROUPS.getOrDefault(login.getCaller(), Set.of("customer")));
        }
        return CredentialValidationResult.INVALID_RESULT;
    }
}
