package dev.idempotency;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import jakarta.enterprise.util.AnnotationLiteral;
import jakarta.enterprise.util.Nonbinding;
import jakarta.interceptor.InterceptorBinding;

import dev.idempotency.exceptions.IdempotencyConflictException;
import dev.idempotency.exceptions.IdempotencyKeyReuseException;
import dev.idempotency.exceptions.UnknownIdempotencyTokenException;

/**
 * Makes a method idempotent: a retried request runs the method once, and every retry gets the
 * first outcome back.
 *
 * <p>On a JAX-RS resource method the caller sends an {@code Idempotency-Key} header. The first
 * request with a key claims it in the configured {@link dev.idempotency.spi.IdempotencyStore
 * store}, runs the method and stores its status, allow-listed headers and exact body bytes. A
 * retry with the same key and the same request replays that response with
 * {@code Idempotent-Replayed: true}; a retry while the first is still running gets
 * {@code 409}; a retry with another body, method or path gets {@code 422}. docs/http-contract.md lists the
 * whole contract and its problem types. A webhook receiver takes the key from its sender's header
 * ({@link #keyHeader()}) or from the body ({@link #keyFromBody()}); {@link #fingerprint()} chooses
 * what of a request must be the same for a retry to replay.
 *
 * <p>On a CDI bean, EJB or message-consumer method, the key comes from parameters marked
 * {@link IdempotencyKey}. The first call with a key runs the method and stores its return value
 * (as JSON-B, with its generic type); a duplicate after completion returns an equal value without
 * running the method ({@code void} methods are skipped); a duplicate while the first runs throws
 * {@link IdempotencyConflictException}; a key reused with other arguments throws
 * {@link IdempotencyKeyReuseException}. An exception releases the key and is rethrown unchanged.
 *
 * <p>On a type, the annotation applies to every JAX-RS resource method of the type and to every
 * method with an {@link IdempotencyKey} parameter; an annotation on a method wins over the one on
 * its type.
 *
 * <p><b>Configuration.</b> Every member can be overridden with MicroProfile Config, the way
 * MicroProfile Fault Tolerance does it. The first key that is set wins:
 * <ol>
 * <li>{@code <fully.qualified.Class>/<method>/Idempotent/<member>}</li>
 * <li>{@code <fully.qualified.Class>/Idempotent/<member>}</li>
 * <li>{@code Idempotent/<member>}</li>
 * <li>the member on the method's annotation, then on the class's annotation.</li>
 * </ol>
 * Annotation values and configured values are read and validated once, at deployment. A bad
 * value fails the deployment with a coded message that names the bean, the method, the config
 * key, the value and what is allowed; nothing is looked up per call.
 *
 * <p><b>Duplicates in flight.</b> By default a duplicate of a request still running is answered
 * at once ({@code 409}); {@link #inProgress()} {@code = WAIT} makes it wait for the first answer
 * instead, up to {@link #maxWait()}.
 */
@InterceptorBinding
@Inherited
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.METHOD, ElementType.TYPE})
public @interface Idempotent {

    /**
     * How long a completed outcome is kept and replayed, as an ISO-8601 duration
     * ({@link java.time.Duration#parse(CharSequence)}, e.g. {@code PT24H}, {@code P7D}).
     * Default {@code PT24H}. Must be positive and not shorter than {@link #lease()}; anything
     * else fails the deployment. Keys are never deleted as soon as the work is done: they live
     * until the ttl has run out, measured by the store's clock.
     *
     * @return the retention of completed outcomes
     */
    @Nonbinding
    String ttl() default "PT24H";

    /**
     * How long a claim stays "in progress" before a retry of the same request may take it over,
     * as an ISO-8601 duration. Default {@code PT60S}. Choose it longer than the slowest execution:
     * while the lease runs, duplicates get {@code 409}; after it ran out (the owner crashed) a
     * retry with the same request may run the method again, and the late owner then loses its
     * claim (its transaction is rolled back). A slow execution that nobody took over still
     * completes and counts. Another request with the key gets {@code 422} before and after the
     * lease. Must be positive; anything else fails the deployment.
     *
     * @return the lease of an in-progress claim
     */
    @Nonbinding
    String lease() default "PT60S";

    /**
     * Whether HTTP callers must send a key (where the endpoint takes it from: its header, or the
     * body with {@link #keyFromBody()}). Default {@code true}: a request without one gets
     * {@code 400} ({@code missing-key}) and the method does not run. With {@code false}, a
     * request without a key runs the method with no idempotency at all.
     *
     * @return whether a key is required
     */
    @Nonbinding
    boolean required() default true;

    /**
     * Who shares a key space. Default {@link IdempotencyScope#PRINCIPAL}: a key belongs to the
     * authenticated caller (or to all anonymous callers together) and to this endpoint, so one
     * caller can never receive another caller's stored response. {@link IdempotencyScope#TENANT}
     * and {@link IdempotencyScope#TENANT_PRINCIPAL} need {@code idempotency.tenant.source}; on a
     * non-HTTP method only a source it has ({@code JWT_CLAIM}, {@code RESOLVER}). Configured values
     * are the enum constant names (case-insensitive); an unknown one, or a tenant scope without a
     * source the method can have, fails the deployment.
     *
     * @return the scope of keys
     */
    @Nonbinding
    IdempotencyScope scope() default IdempotencyScope.PRINCIPAL;

    /**
     * Whether a {@code 5xx} answer is stored and replayed like any other. Default
     * {@code false}: a {@code 5xx} answer (and any exception thrown by the method) releases the
     * claim, so that a retry runs the method again. Set it to {@code true} to behave like Stripe,
     * which pins server errors to their key.
     *
     * @return whether server errors are pinned
     */
    @Nonbinding
    boolean pinServerErrors() default false;

    /**
     * What to do when the store cannot be reached. Default {@code false}: fail closed, answer
     * {@code 503} with {@code Retry-After}, and do NOT run the method. With {@code true} the
     * method runs without idempotency protection while the store is down (a duplicate may then
     * run twice); choose it only for operations where availability beats exactly-once.
     *
     * @return whether to run unprotected when the store fails
     */
    @Nonbinding
    boolean failOpen() default false;

    /**
     * The request header that carries the key on this endpoint, e.g. {@code "X-GitHub-Delivery"},
     * {@code "ce-id"} (CloudEvents) or {@code "X-Shopify-Webhook-Id"}: for webhook receivers, whose
     * senders put a unique delivery id in a header of their own. Default {@code ""}: the library's
     * key header ({@code idempotency.key-header}, {@code Idempotency-Key}). The value is read with
     * the same rules as the {@code Idempotency-Key} (a bare token or an sf-string, 1 to
     * {@code idempotency.max-key-length} printable US-ASCII characters, one header only).
     * {@link #required()} applies to it. Must be an HTTP header name (an RFC 9110 token), and
     * cannot be combined with {@link #keyFromBody()}; anything else fails the deployment. JAX-RS
     * resource methods only.
     *
     * @return the key's header, or {@code ""} for the library's
     */
    @Nonbinding
    String keyHeader() default "";

    /**
     * Takes the key from the JSON request body instead of a header: an RFC 6901 JSON Pointer to a
     * string or number in it, e.g. {@code "/id"} (a Stripe event's id) or {@code "/data/object/id"}.
     * A number becomes its exact decimal digits ({@code 1e3} is the key {@code 1000}, nothing is
     * rounded). A body that is not JSON, or without a string or number at the pointer, has no key:
     * {@code 400} ({@code missing-key}, naming the pointer) unless {@link #required()} is
     * {@code false}. Default {@code ""}: the key comes from a header. The pointer must be valid
     * RFC 6901 and not {@code ""} (the whole body), the method must be one whose request has a
     * body (not {@code GET}, {@code HEAD}, {@code DELETE} or {@code OPTIONS}), and
     * {@link #keyHeader()} must not be set; anything else fails the deployment. JAX-RS resource
     * methods only.
     *
     * @return the JSON Pointer to the key in the body, or {@code ""}
     */
    @Nonbinding
    String keyFromBody() default "";

    /**
     * What of an HTTP request the fingerprint covers, see {@link IdempotencyFingerprint}. Default
     * {@link IdempotencyFingerprint#BODY}: the method, the path, the query and the whole body, byte
     * for byte. Configured values are the constant names, case-insensitive; an unknown one fails
     * the deployment, as does a mode that reads the body ({@code JSON}, {@code MULTIPART}) on a
     * method whose request has none. JAX-RS resource methods only (non-HTTP methods:
     * {@link #fingerprintArguments()}).
     *
     * @return what the fingerprint covers
     */
    @Nonbinding
    IdempotencyFingerprint fingerprint() default IdempotencyFingerprint.BODY;

    /**
     * With {@code fingerprint = JSON}: the only parts of the body the fingerprint covers, as RFC
     * 6901 JSON Pointers, e.g. {@code {"/amount", "/currency"}}; a change anywhere else replays.
     * Each value is canonicalised as {@link IdempotencyFingerprint#JSON} says; a member that is
     * missing counts as absent, which differs from {@code null}. Their order does not matter.
     * Default: none (the whole body). In MicroProfile Config, a comma-separated list ({@code \,}
     * for a comma in a pointer). Each must be a valid pointer other than {@code ""}, and the
     * {@link #fingerprint()} must be {@code JSON}; anything else fails the deployment.
     *
     * @return the JSON Pointers the fingerprint covers, or none for the whole body
     */
    @Nonbinding
    String[] fingerprintMembers() default {};

    /**
     * For CDI bean, EJB and message-consumer methods: whether the arguments that are not part of
     * the key (and a key parameter whose text two values may share: a collection, a map, a
     * record; of an observer, only its event) are fingerprinted (as JSON-B), so that a key reused with other arguments fails with
     * {@link IdempotencyKeyReuseException} instead of replaying. Default {@code true}. Set it to
     * {@code false} when the other arguments legitimately differ between deliveries (a
     * redelivery counter, a timestamp). HTTP requests are fingerprinted as {@link #fingerprint()} says:
     * {@code false} on a JAX-RS resource method fails the deployment ({@code IDEMP0153}).
     *
     * @return whether the arguments are fingerprinted
     */
    @Nonbinding
    boolean fingerprintArguments() default true;

    /**
     * Whether keys must have been issued by this application ({@link IdempotencyTokens}, or the
     * token endpoint of an {@link dev.idempotency.jaxrs.IdempotencyTokenResource}) instead of
     * being chosen by the client. Default {@code false}. With {@code true}, the first request with
     * a token runs only if the token was issued to the same principal and has not expired
     * ({@code idempotency.tokens.ttl}); otherwise it gets {@code 400} ({@code unknown-token}) or,
     * for a non-HTTP caller, {@link UnknownIdempotencyTokenException}, and nothing runs. A token
     * that was used replays like any key, on this endpoint only: used on another endpoint it gets
     * {@code 422}. A token's use belongs to its principal whatever {@link #scope()} says. The
     * {@link #ttl()} must be at least the token ttl (so that a token can never outlive the record
     * of its use), {@link #failOpen()} must be {@code false} (a token nobody checked must not run)
     * and {@code idempotency.max-key-length} at least 43; anything else fails the deployment.
     *
     * @return whether keys must be server-issued tokens
     */
    @Nonbinding
    boolean serverIssuedKeys() default false;

    /**
     * A stable name for the endpoint's key space, e.g. {@code "payments.create"}. Keys are scoped
     * to an endpoint's identity; by default it is derived from the code: the bean class, the
     * method name and the erased parameter types
     * ({@code com.acme.Payments#charge(com.acme.Order)}), so that overloaded methods, and two
     * beans inheriting one annotated method, never share keys. Renaming the class or the method,
     * or changing the parameter types, changes the derived identity: the keys recorded under the
     * old one (in flight during a rolling upgrade, or completed within the ttl) are no longer
     * found, and a retry of them runs again. A {@code name} survives such refactorings.
     *
     * <p>On a method, the name is the whole identity. On a type, it stands for the class's name
     * in the derived identity of each method ({@code payments#charge(com.acme.Order)}). Default
     * {@code ""}: derived. A name must be 1 to 200 printable characters without spaces; anything
     * else fails the deployment. Two methods with one name share a key space: that fails the
     * deployment unless each of them says {@link #sharedName()}.
     *
     * @return the endpoint's stable name, or {@code ""} for the derived identity
     */
    @Nonbinding
    String name() default "";

    /**
     * Whether this method shares its {@link #name()} with other methods on purpose (e.g. two
     * entry points of one operation that must answer each other's retries). Default
     * {@code false}: two methods with one name fail the deployment.
     *
     * @return whether the name is shared on purpose
     */
    @Nonbinding
    boolean sharedName() default false;

    /**
     * Whether unauthenticated callers may run the method. Default {@link AnonymousCallers#ALLOW}.
     * With {@link AnonymousCallers#REJECT} an anonymous caller is refused before anything is
     * claimed: {@code 401} with problem type {@code authentication-required} over HTTP (with
     * {@code WWW-Authenticate: <idempotency.authentication-challenge>} when that is set), or
     * {@link dev.idempotency.exceptions.AuthenticationRequiredException}; nothing runs. Configured
     * values are {@code ALLOW} and {@code REJECT} (case-insensitive); anything else fails the
     * deployment.
     *
     * @return what happens to anonymous callers
     */
    @Nonbinding
    AnonymousCallers anonymous() default AnonymousCallers.ALLOW;

    /**
     * What a duplicate gets while the first request with its key is still running. Default
     * {@link InProgressDuplicates#CONFLICT}: {@code 409} at once ({@link IdempotencyConflictException}
     * for a non-HTTP call), and the caller retries. With {@link InProgressDuplicates#WAIT} the
     * duplicate waits up to {@link #maxWait()} and gets the replay: for callers without a retry
     * loop (message consumers behind HTTP, simple SDKs). Configured values are the constant names
     * (case-insensitive); anything else fails the deployment.
     *
     * @return what duplicates in flight get
     */
    @Nonbinding
    InProgressDuplicates inProgress() default InProgressDuplicates.CONFLICT;

    /**
     * With {@code inProgress = WAIT}: the longest a duplicate waits for the first request's
     * outcome before it is answered as in progress, as an ISO-8601 duration. Default {@code ""}:
     * 5 seconds, or the {@link #lease()} when that is shorter. Must be positive and not longer
     * than the lease (a claim held past its lease may be taken over by a retry, so waiting longer
     * for it makes no sense); anything else fails the deployment, also with
     * {@code inProgress = CONFLICT}, where the value is not used. A waiting duplicate never takes
     * the key over itself: if the first request outlives its lease, the wait ends in the
     * {@code 409}.
     *
     * @return the longest wait of a duplicate, or {@code ""} for the default
     */
    @Nonbinding
    String maxWait() default "";

    /**
     * An {@code @Idempotent} instance with the default members, e.g. to look the interceptor up
     * through {@code BeanManager.resolveInterceptors}.
     */
    final class Literal extends AnnotationLiteral<Idempotent> implements Idempotent {

        private static final long serialVersionUID = 1L;

        @Override
        public String ttl() {
            return "PT24H";
        }

        @Override
        public String lease() {
            return "PT60S";
        }

        @Override
        public boolean required() {
            return true;
        }

        @Override
        public IdempotencyScope scope() {
            return IdempotencyScope.PRINCIPAL;
        }

        @Override
        public boolean pinServerErrors() {
            return false;
        }

        @Override
        public boolean failOpen() {
            return false;
        }

        @Override
        public String keyHeader() {
            return "";
        }

        @Override
        public String keyFromBody() {
            return "";
        }

        @Override
        public IdempotencyFingerprint fingerprint() {
            return IdempotencyFingerprint.BODY;
        }

        @Override
        public String[] fingerprintMembers() {
            return new String[0];
        }

        @Override
        public boolean fingerprintArguments() {
            return true;
        }

        @Override
        public boolean serverIssuedKeys() {
            return false;
        }

        @Override
        public String name() {
            return "";
        }

        @Override
        public boolean sharedName() {
            return false;
        }

        @Override
        public AnonymousCallers anonymous() {
            return AnonymousCallers.ALLOW;
        }

        @Override
        public InProgressDuplicates inProgress() {
            return InProgressDuplicates.CONFLICT;
        }

        @Override
        public String maxWait() {
            return "";
        }
    }
}
