package dev.idempotency.it.consumers;

import java.util.Set;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.security.enterprise.credential.Credential;
import jakarta.security.enterprise.credential.UsernamePasswordCredential;
import jakarta.security.enterprise.identitystore.CredentialValidationResult;
import jakarta.security.enterprise.identitystore.IdentityStore;

/**
 * Real users named as servers name the unauthenticated caller (Payara "ANONYMOUS", WildFly
 * "anonymous", Open Liberty "UNAUTHENTICATED"), password = name, beside the demo users: such a
 * user must never share a key space with anonymous callers.
 */
@ApplicationScoped
public class ContainerNamedUsers implements IdentityStore {

    static final Set<String> NAMES = Set.of("ANONYMOUS", "anonymous", "UNAUTHENTICATED");

    @Override
    public CredentialValidationResult validate(Credential credential) {
        if (credential instanceof UsernamePasswordCredential login && NAMES.contains(login.getCaller())
                && login.getPasswordAsString().equals(login.getCaller())) {
            return new CredentialValidationResult(login.getCaller(), Set.of("customer"));
        }
        return CredentialValidationResult.NOT_VALIDATED_RESULT;
    }
}
