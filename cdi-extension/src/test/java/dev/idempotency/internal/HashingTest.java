package dev.idempotency.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.security.Principal;

import org.junit.jupiter.api.Test;

import dev.idempotency.IdempotencyScope;
import dev.idempotency.claim.ScopedKey;
import dev.idempotency.jaxrs.internal.RequestFingerprint;

class HashingTest {

    private static final Principal ALICE = () -> "alice";
    private static final Principal BOB = () -> "bob";

    @Test
    void fieldBoundariesMatter() {
        assertThat(Hashing.sha256().add("ab").add("c").finish()).isNotEqualTo(Hashing.sha256().add("a").add("bc").finish());
        assertThat(Hashing.sha256().add("abc").finish()).hasSize(43).matches("[A-Za-z0-9_-]+");
    }

    /**
     * Keys and fingerprints are stored: a record written by an earlier version must be found by
     * this one. The values are computed outside Java, from the documented format (each field its
     * length as 8 bytes big-endian, then its UTF-8 bytes; SHA-256; base64url without padding).
     */
    @Test
    void hashesAreTheDocumentedFormatsAndNeverChange() {
        assertThat(Hashing.sha256().add("ab").add("c").finish()).isEqualTo("YB1UduLM_iyHorunoyJllzSgV0nVtap4H1E-SRLbDV8");
        assertThat(Hashing.sha256().add("POST").add("/api/payments").add("é").finish())
                .isEqualTo("Fbl4dr4VmtxFjbhTUG8D6lVubnVqPQil4IGsMGPHpXk");
    }

    /**
     * Principal names and tenants come from identity providers and resolvers as any Java text, which
     * may hold a surrogate without its pair; UTF-8 has no bytes for it, and Java's encoder writes
     * {@code ?}: tenant {@code acme\uD800} shared the keys of tenant {@code acme?}.
     */
    @Test
    void textWithALoneSurrogateNeverHashesAsOtherText() {
        String question = Hashing.sha256().add("acme?").finish();

        assertThat(Hashing.sha256().add("acme\uD800").finish()).isNotEqualTo(question);
        assertThat(Hashing.sha256().add("acme\uDC00").finish()).isNotEqualTo(question)
                .isNotEqualTo(Hashing.sha256().add("acme\uD800").finish());
        assertThat(Hashing.sha256().add("\uDC00\uD800").finish()).isNotEqualTo(Hashing.sha256().add("??").finish());
        assertThat(Hashing.sha256().add("a\uD83D\uDE00").finish()).as("a pair is UTF-8 as ever")
                .isEqualTo(Hashing.sha256().add("a\uD83D\uDE00".getBytes(StandardCharsets.UTF_8)).finish());
        assertThat(ScopedKey.of(IdempotencyScope.PRINCIPAL, "P#create", () -> "alice\uD800", "k1"))
                .isNotEqualTo(ScopedKey.of(IdempotencyScope.PRINCIPAL, "P#create", () -> "alice?", "k1"));
    }

    @Test
    void theFingerprintCoversMethodPathQueryAndTheWholeBody() {
        byte[] body = "x".repeat(20_000).getBytes(StandardCharsets.UTF_8);
        byte[] differentAtTheEnd = body.clone();
        differentAtTheEnd[body.length - 1] = 'y';
        String base = RequestFingerprint.of("POST", "/api/payments", null, body, body.length);

        assertThat(RequestFingerprint.of("POST", "/api/payments", null, body.clone(), body.length)).isEqualTo(base);
        assertThat(RequestFingerprint.of("POST", "/api/payments", null, differentAtTheEnd, body.length)).isNotEqualTo(base);
        assertThat(RequestFingerprint.of("PUT", "/api/payments", null, body, body.length)).isNotEqualTo(base);
        assertThat(RequestFingerprint.of("POST", "/api/payments/1", null, body, body.length)).isNotEqualTo(base);
        assertThat(RequestFingerprint.of("POST", "/api/payments", "a=1", body, body.length)).isNotEqualTo(base);
        assertThat(RequestFingerprint.of("POST", "/api/payments", "", body, body.length)).as("empty query vs none")
                .isNotEqualTo(base);
    }

    @Test
    void scopedKeysSeparatePrincipalsAndEndpointsButNotInEndpointScope() {
        String alice = ScopedKey.of(IdempotencyScope.PRINCIPAL, "P#create", ALICE, "k1");

        assertThat(ScopedKey.of(IdempotencyScope.PRINCIPAL, "P#create", ALICE, "k1")).isEqualTo(alice);
        assertThat(ScopedKey.of(IdempotencyScope.PRINCIPAL, "P#create", BOB, "k1")).isNotEqualTo(alice);
        assertThat(ScopedKey.of(IdempotencyScope.PRINCIPAL, "P#create", null, "k1")).isNotEqualTo(alice);
        assertThat(ScopedKey.of(IdempotencyScope.PRINCIPAL, "P#refund", ALICE, "k1")).isNotEqualTo(alice);
        assertThat(ScopedKey.of(IdempotencyScope.PRINCIPAL, "P#create", () -> "anonymous", "k1"))
                .as("a user named anonymous is not the anonymous caller")
                .isNotEqualTo(ScopedKey.of(IdempotencyScope.PRINCIPAL, "P#create", null, "k1"));
        assertThat(ScopedKey.of(IdempotencyScope.ENDPOINT, "P#create", ALICE, "k1"))
                .isEqualTo(ScopedKey.of(IdempotencyScope.ENDPOINT, "P#create", BOB, "k1"));
        assertThat(alice).doesNotContain("k1").hasSize(43);
        assertThat(ScopedKey.forLog(alice)).hasSize(12);
    }

    /**
     * The anonymous callers' stand-in starts with a NUL, which no ordinary name has; a name that
     * starts with one (an identity store that takes it: a sign-up form, an identity provider's
     * claim) must still never be it: it shared the anonymous callers' keys (their replays, and
     * their tokens and issuance limit) and passed as authenticated.
     */
    @Test
    void aUserNamedLikeTheAnonymousStandInIsNotTheAnonymousCaller() {
        Principal impostor = () -> "\u0000anonymous";
        String anonymous = ScopedKey.of(IdempotencyScope.PRINCIPAL, "P#create", null, "k1");

        assertThat(ScopedKey.of(IdempotencyScope.PRINCIPAL, "P#create", impostor, "k1")).isNotEqualTo(anonymous);
        assertThat(ScopedKey.of(IdempotencyScope.TENANT_PRINCIPAL, "P#create", impostor, "t1", "k1"))
                .isNotEqualTo(ScopedKey.of(IdempotencyScope.TENANT_PRINCIPAL, "P#create", null, "t1", "k1"));
        assertThat(ScopedKey.ofIssuedToken(impostor, "tok")).isNotEqualTo(ScopedKey.ofIssuedToken(null, "tok"));
        assertThat(ScopedKey.principalName(impostor)).isNotEqualTo(ScopedKey.principalName(null));
        assertThat(ScopedKey.principalName(() -> "\u0000\u0000anonymous")).as("still one name for one user")
                .isNotEqualTo(ScopedKey.principalName(impostor));
        assertThat(ScopedKey.of(IdempotencyScope.PRINCIPAL, "P#create", ALICE, "k1"))
                .as("an ordinary name hashes as it always did")
                .isEqualTo(Hashing.sha256().add("PRINCIPAL").add("P#create").add(ALICE.getName()).add("k1").finish());
    }
}
