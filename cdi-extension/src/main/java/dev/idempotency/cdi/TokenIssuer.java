package dev.idempotency.cdi;

import java.security.Principal;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import dev.idempotency.IdempotencyTokens;
import dev.idempotency.IssuedToken;

/** The bean behind {@link IdempotencyTokens}: the current caller, and the runtime's token registry. */
@ApplicationScoped
public class TokenIssuer implements IdempotencyTokens {

    @Inject
    IdempotencyRuntime runtime;

    @Inject
    CurrentCaller currentCaller;

    @Override
    public IssuedToken issue() {
        return issue(currentCaller.get());
    }

    @Override
    public IssuedToken issue(Principal to) {
        return runtime.tokens().issue(to);
    }
}
