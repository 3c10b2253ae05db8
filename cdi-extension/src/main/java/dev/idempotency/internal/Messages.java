package dev.idempotency.internal;

/**
 * The coded messages of the core ({@code idempotency-cdi}) in one place: ranges 01xx to 04xx. The
 * store modules keep theirs in catalogues of their own (05xx and 07xx in {@code idempotency-jpa},
 * 06xx in {@code idempotency-infinispan}); docs/message-codes.md lists which module owns which
 * range. Codes are stable: users search for them, and docs/troubleshooting.md explains each.
 * Messages never contain raw keys or bodies.
 *
 * <p>Ranges: 01xx deployment (definitions and settings), 02xx store selection, 03xx requests and
 * invocations, 04xx store failures and ownership.
 */
public final class Messages {

    private Messages() {
    }

    /**
     * @param beanClass a bean or resource class
     * @param method one of its methods
     * @return how messages name them: {@code bean <fqcn>, method <name>}
     */
    public static String where(Class<?> beanClass, java.lang.reflect.Method method) {
        return "bean " + beanClass.getName() + ", method " + method.getName();
    }

    // --- 01xx: deployment ---------------------------------------------------------------

    public static String invalidDuration(String where, String key, String value) {
        return "IDEMP0101: " + where + ": " + key + "='" + value
                + "' is not an ISO-8601 duration; allowed: a positive duration such as PT60S, PT24H or P7D";
    }

    public static String nonPositiveDuration(String where, String key, String value) {
        return "IDEMP0102: " + where + ": " + key + "='" + value + "' must be a positive duration (greater than zero)"
                + " of at most P36500D (100 years)";
    }

    public static String ttlShorterThanLease(String where, String ttlKey, String ttl, String leaseKey, String lease) {
        return "IDEMP0103: " + where + ": " + ttlKey + "='" + ttl + "' is shorter than " + leaseKey + "='" + lease
                + "'; allowed: a ttl at least as long as the lease, or a completed outcome would expire before an in-progress claim";
    }

    public static String unknownScope(String where, String key, String value, String allowed) {
        return "IDEMP0104: " + where + ": " + key + "='" + value + "' is not a scope; allowed: " + allowed;
    }

    public static String invalidBoolean(String where, String key, String value) {
        return "IDEMP0105: " + where + ": " + key + "='" + value + "' is not a boolean; allowed: true or false";
    }

    public static String invalidInteger(String key, String value, long min, long max) {
        return "IDEMP0106: library setting " + key + "='" + value + "' is not allowed; allowed: an integer from "
                + min + " to " + max;
    }

    public static String forbiddenStoredHeader(String key, String header) {
        return "IDEMP0107: library setting " + key + " lists '" + header
                + "', a credential or hop-by-hop header that is never stored or replayed; remove it";
    }

    public static String invalidPositiveSettingDuration(String key, String value) {
        return "IDEMP0115: library setting " + key + "='" + value
                + "' is not allowed; allowed: a positive ISO-8601 duration, at most P36500D, such as PT30M or PT2H";
    }

    public static String invalidSettingBoolean(String key, String value) {
        return "IDEMP0116: library setting " + key + "='" + value + "' is not a boolean; allowed: true or false";
    }

    public static String invalidSettingDuration(String key, String value) {
        return "IDEMP0114: library setting " + key + "='" + value
                + "' is not allowed; allowed: an ISO-8601 duration of zero or more, at most P36500D, such as PT0S (off), PT30S or PT5M";
    }

    /** IDEMP0158: the replay marker names a header replays carry or must never carry; fails the deployment. */
    public static String replayedHeaderClashes(String key, String value, String storedHeadersKey) {
        return "IDEMP0158: library setting " + key + "='" + value + "' names a header that replays carry already (the"
                + " stored headers: the defaults and " + storedHeadersKey + ") or never carry (credentials, hop-by-hop"
                + " headers, Content-Length), or one that says how their body is read (Content-Encoding, Content-Range,"
                + " digests, Date); allowed: another HTTP header name, such as the default Idempotent-Replayed";
    }

    /**
     * IDEMP0160: with idempotency.tenant.source=HEADER, the tenant header is the key's own header;
     * fails the deployment.
     */
    public static String tenantHeaderIsTheKeys(String key, String value, String keyHeaderKey, String keyHeader) {
        return "IDEMP0160: library setting " + key + "='" + value + "' names the header of the key (" + keyHeaderKey + "='"
                + keyHeader + "'): every tenant sending the same key would be that key's tenant and share its record;"
                + " allowed: a header of its own, such as the default X-Tenant-Id";
    }

    /** IDEMP0159: idempotency.tokens.allowed-origins lists something that is no web origin; fails the deployment. */
    public static String invalidOrigin(String key, String value) {
        return "IDEMP0159: library setting " + key + " lists '" + value + "', which is no web origin; allowed: a"
                + " comma-separated list of http or https origins, scheme://host[:port] without a path, such as"
                + " https://app.example.com";
    }

    public static String invalidHeaderName(String key, String value) {
        return "IDEMP0108: library setting " + key + "='" + value + "' is not an HTTP header name (RFC 9110 token)";
    }

    public static String noKeySource(String where) {
        return "IDEMP0109: " + where + ": @Idempotent has no key source; allowed: a JAX-RS"
                + " resource method (the key comes from the Idempotency-Key header) or a method with @IdempotencyKey on"
                + " one or more parameters";
    }

    public static String unusableKeyType(String where, String part, String type, String why) {
        return "IDEMP0150: " + where + ": @IdempotencyKey on " + part + " is of type " + type + ", " + why
                + ", so every call would get a key of its own; allowed: a String, a number, a boolean, a UUID, an enum,"
                + " an Optional of one, or a class or record that declares toString(); or a property path to one"
                + " (@IdempotencyKey(\"id\"))";
    }

    public static String unknownKeyProperty(String where, int index, String path, String step, String type) {
        return "IDEMP0110: " + where + ": @IdempotencyKey(\"" + path + "\") on parameter " + index + ": '" + step
                + "' is not a property of " + type + "; allowed: a getter (getX/isX), a record component or a public field,"
                + " dot-separated for nested properties";
    }

    public static String keyWithoutIdempotent(String where) {
        return "IDEMP0111: " + where + ": @IdempotencyKey is on a parameter of a method without @Idempotent (on the method"
                + " or its class); add @Idempotent or remove @IdempotencyKey";
    }

    public static String unsupportedReturnType(String where, String type, String why) {
        return "IDEMP0112: " + where + ": the return type " + type + " cannot be stored and replayed (" + why
                + "); allowed: void, a class or record JSON-B can write and read back, a List/Set/Map/Collection or"
                + " Optional of such, or a CompletionStage/CompletableFuture of any of these";
    }

    public static String asynchronousEjb(String where) {
        return "IDEMP0113: " + where + ": @Idempotent is not supported on EJB @Asynchronous methods (the container completes"
                + " their Future on its own thread, after the interceptor returned); return a CompletionStage from a CDI bean"
                + " instead, or call a synchronous @Idempotent method from the asynchronous one";
    }

    public static String invalidTenantSource(String key, String value, String allowed) {
        return "IDEMP0122: library setting " + key + "='" + value + "' is not a tenant source; allowed: " + allowed
                + " (case-insensitive)";
    }

    public static String invalidClaimName(String key, String value, int maxLength) {
        return "IDEMP0123: library setting " + key + "='" + value + "' is not a JWT claim name; allowed: 1 to "
                + maxLength + " printable US-ASCII characters without spaces, such as tenant_id or tid";
    }

    public static String invalidChallenge(String key, String value, int maxLength) {
        return "IDEMP0124: library setting " + key + "='" + value + "' is not a WWW-Authenticate value; allowed: up to "
                + maxLength + " printable US-ASCII characters, such as Basic realm=\"payments\" or Bearer, or nothing";
    }

    public static String invalidRoleName(String key, String value, int maxLength) {
        return "IDEMP0130: library setting " + key + "='" + value + "' is not a role name; allowed: 1 to " + maxLength
                + " printable US-ASCII characters without spaces, not the wildcards * and ** (** is every authenticated"
                + " caller's), such as idempotency-support";
    }

    public static String supportRelease(String who, String keyHash, String endpoint) {
        return "IDEMP0323: " + who + " released the abandoned claim " + keyHash + " on " + endpoint
                + " through the support look-up; the next request with its key runs";
    }

    /** IDEMP0163: an endpoint's key header is the tenant header, with the HEADER source; fails the deployment. */
    public static String keyHeaderIsTheTenants(String where, String keyHeader, String scope, String tenantHeaderKey,
            String tenantHeader) {
        return "IDEMP0163: " + where + ": keyHeader=" + keyHeader + " with scope=" + scope + " names the header of the"
                + " tenant (" + tenantHeaderKey + "='" + tenantHeader + "'): each request's key would be its tenant;"
                + " allowed: a key header of its own, such as the default Idempotency-Key";
    }

    /** IDEMP0161: a tenant scope with server-issued keys, whose use is the principal's alone; fails the deployment. */
    public static String tokensScopedByTenant(String where, String scope) {
        return "IDEMP0161: " + where + ": scope=" + scope + " with serverIssuedKeys=true, but a server-issued token is its"
                + " principal's, by the principal's name alone (the token endpoint knows no tenant): the tenant would be"
                + " asked for and not used; allowed: scope PRINCIPAL with serverIssuedKeys=true where principal names are"
                + " unique across tenants, or serverIssuedKeys=false with a tenant scope";
    }

    public static String tenantScopeWithoutSource(String where, String scope, String sourceKey) {
        return "IDEMP0125: " + where + ": scope=" + scope + " needs the tenant of each request, but " + sourceKey
                + " is not set; allowed: set " + sourceKey + " to HEADER, JWT_CLAIM, HOST or RESOLVER, or choose"
                + " scope PRINCIPAL or ENDPOINT";
    }

    public static String tenantSourceWithoutRequest(String where, String scope, String sourceKey, String source) {
        return "IDEMP0126: " + where + ": scope=" + scope + " on a method with @IdempotencyKey parameters, but "
                + sourceKey + "=" + source + " takes the tenant from the HTTP request, which such a call does not have;"
                + " allowed: " + sourceKey + "=JWT_CLAIM or RESOLVER, or scope PRINCIPAL or ENDPOINT on this method";
    }

    public static String scopeResolverNotResolvable(String sourceKey, java.util.List<String> beans, String where) {
        return "IDEMP0127: " + sourceKey + "=RESOLVER and " + where + " is scoped by tenant, but "
                + (beans.isEmpty() ? "no bean implements dev.idempotency.spi.IdempotencyScopeResolver"
                        : beans.size() + " beans implement dev.idempotency.spi.IdempotencyScopeResolver: " + beans)
                + "; allowed: exactly one such bean (or one @Alternative @Priority among them)";
    }

    public static String jwtApiMissing(String where, String scope, String sourceKey) {
        return "IDEMP0128: " + where + ": scope=" + scope + " with " + sourceKey + "=JWT_CLAIM, but the application"
                + " does not see the MicroProfile JWT API (org.eclipse.microprofile.jwt.JsonWebToken); allowed: a server"
                + " with MicroProfile JWT, or another tenant source (HEADER, HOST, RESOLVER)";
    }

    public static String unknownAnonymousCallers(String where, String key, String value, String allowed) {
        return "IDEMP0129: " + where + ": " + key + "='" + value + "' is not a choice for anonymous callers; allowed: "
                + allowed + " (case-insensitive)";
    }

    public static String invalidKeyHeader(String where, String key, String value) {
        return "IDEMP0140: " + where + ": " + key + "='" + value + "' is not an HTTP header name; allowed: an RFC 9110"
                + " token such as X-GitHub-Delivery, ce-id or X-Shopify-Webhook-Id, or \"\" for idempotency.key-header";
    }

    public static String invalidBodyPointer(String where, String key, String value) {
        return "IDEMP0141: " + where + ": " + key + "='" + value + "' is not a JSON Pointer to a part of the body;"
                + " allowed: an RFC 6901 pointer such as /id or /data/object/id (a '/' before each step, ~0 for '~'"
                + " and ~1 for '/' in a step)";
    }

    public static String twoKeySources(String where, String headerKey, String header, String bodyKey, String pointer) {
        return "IDEMP0142: " + where + ": " + headerKey + "='" + header + "' and " + bodyKey + "='" + pointer
                + "' both say where the key comes from; allowed: one of them, a header or a JSON Pointer into the body";
    }

    public static String unknownFingerprint(String where, String key, String value, String allowed) {
        return "IDEMP0143: " + where + ": " + key + "='" + value + "' is not a fingerprint mode; allowed: " + allowed
                + " (case-insensitive)";
    }

    public static String membersWithoutJson(String where, String membersKey, String members, String modeKey,
            String mode) {
        return "IDEMP0144: " + where + ": " + membersKey + "='" + members + "' needs fingerprint JSON, but " + modeKey
                + "='" + mode + "'; allowed: fingerprintMembers with fingerprint=JSON, or no fingerprintMembers";
    }

    public static String bodyOfBodilessMethod(String where, String key, String value, String httpMethod) {
        return "IDEMP0145: " + where + ": " + key + "='" + value + "' reads the request body, but the resource method"
                + " answers " + httpMethod + ", whose requests have none; allowed: this member on a method with a body"
                + " (POST, PUT, PATCH), or its default";
    }

    public static String httpMemberOnNonHttpMethod(String where, String key, String value) {
        return "IDEMP0146: " + where + ": " + key + "='" + value + "' applies to JAX-RS resource methods only, and this"
                + " method is none; allowed: the member's default here (the key comes from @IdempotencyKey parameters,"
                + " the fingerprint from fingerprintArguments), or the member on the class or a resource method";
    }

    public static String argumentsFingerprintOnResourceMethod(String where, String key, String value) {
        return "IDEMP0153: " + where + ": " + key + "='" + value + "' applies to methods without an HTTP request"
                + " only, and this is a JAX-RS resource method, whose request is fingerprinted as @Idempotent(fingerprint)"
                + " says; allowed: fingerprint=NONE where retries may carry another body under one key, or the member's"
                + " default here";
    }

    /**
     * The interceptor's priority puts it outside {@code @Transactional} (priority 200): a warning at
     * deployment, since a deployment may want it.
     */
    public static String interceptorOutsideTransactional(int priority) {
        return "IDEMP0154: idempotency.interceptor.priority=" + priority + " puts @Idempotent outside @Transactional"
                + " (priority 200): a method's own transaction (REQUIRES_NEW, or one it begins where its caller has none)"
                + " then begins inside the claim, which is bound to the caller's transaction or to none: a rollback of"
                + " the caller gives back the key of work that committed (a retry runs it again), and a store that joins"
                + " transactions records the outcome apart from the method's rows; allowed: any integer, above 200 keeps"
                + " it inside (the default, 1100)";
    }

    public static String unknownInProgress(String where, String key, String value, String allowed) {
        return "IDEMP0147: " + where + ": " + key + "='" + value + "' is not a choice for duplicates in flight; allowed: "
                + allowed + " (case-insensitive)";
    }

    public static String streamedAnswer(String where, String stream) {
        return "IDEMP0149: " + where + ": an @Idempotent resource method answers with " + stream + ", whose parts are"
                + " sent after its response was recorded, so a retry would get an empty replay; allowed: an answer"
                + " written once (an entity, a Response, a StreamingOutput, an AsyncResponse or a CompletionStage),"
                + " or no @Idempotent on this method";
    }

    public static String maxWaitLongerThanLease(String where, String maxWaitKey, String maxWait, String leaseKey,
            String lease) {
        return "IDEMP0148: " + where + ": " + maxWaitKey + "='" + maxWait + "' is longer than " + leaseKey + "='" + lease
                + "'; allowed: a positive duration up to the lease (a claim that holds the key longer than its lease may be"
                + " taken over by a retry, so waiting for it longer makes no sense), or \"\" for 5 seconds or the lease"
                + " when shorter";
    }

    // --- 02xx: store selection ----------------------------------------------------------

    public static String inMemoryStoreInUse(int maxEntries) {
        return "IDEMP0201: the in-memory idempotency store is in use (max " + maxEntries
                + " records). It is SINGLE-NODE: keys claimed on one instance are unknown to the others, and"
                + " a restart forgets them. Add idempotency-jpa, idempotency-infinispan or idempotency-redis for several"
                + " instances.";
    }

    public static String storesFound(java.util.Collection<String> storeClasses) {
        return "IDEMP0202: idempotency store bean(s) found: " + storeClasses
                + "; the @Alternative with the highest @Priority is used instead of the in-memory store";
    }

    // --- 03xx: requests -----------------------------------------------------------------

    public static String responseTooLargeToStore(String endpoint, int cap) {
        return "IDEMP0301: " + endpoint + ": the response body exceeded idempotency.max-stored-body-size=" + cap
                + " bytes; it was sent but not stored, and retries with its key get problem type response-not-stored";
    }

    public static String responseNotWritten(String endpoint, int status, Throwable failure) {
        return responseNotWritten(endpoint, status, String.valueOf(failure));
    }

    public static String responseNotWritten(String endpoint, int status, String why) {
        return "IDEMP0325: " + endpoint + ": the method returned a " + status + " whose body could not be written ("
                + why + "); the client got the server's error, and retries with its key get problem type"
                + " response-not-stored: the method is not run again";
    }

    public static String claimReleasedAtRequestEnd(String endpoint, String keyHash) {
        return "IDEMP0302: " + endpoint + ": request for key hash " + keyHash
                + " ended without a response the library could record (unmapped exception?); the claim was released";
    }

    public static String invalidKeyPart(String where, String part, String problem) {
        return "IDEMP0303: " + where + ": the idempotency key from " + part + " " + problem
                + "; keys are 1 to idempotency.max-key-length characters of printable US-ASCII, not only spaces";
    }

    public static String keyUnreadable(String where, String part) {
        return "IDEMP0304: " + where + ": the idempotency key could not be read from " + part;
    }

    public static String invocationInProgress(String where, String keyHash) {
        return "IDEMP0305: " + where + ": an invocation with the same idempotency key (hash " + keyHash
                + ") is still running; retry later";
    }

    public static String invocationKeyReused(String where, String keyHash) {
        return "IDEMP0306: " + where + ": the idempotency key (hash " + keyHash
                + ") was used before with other arguments; use a new key for a new operation";
    }

    public static String argumentsNotFingerprintable(String where, int index) {
        return "IDEMP0307: " + where + ": argument " + index + " cannot be written as JSON-B to fingerprint the call;"
                + " nothing was executed. Make it JSON-B serializable, or set fingerprintArguments=false";
    }

    public static String resultTooLargeToStore(String where, String keyHash, int size, int cap) {
        return "IDEMP0326: " + where + ": the result for key hash " + keyHash + " is " + size + " bytes of JSON, more than"
                + " idempotency.max-stored-body-size=" + cap + "; the call completed but duplicates get"
                + " IdempotencyException (result not stored) instead of a replayed value, and never run it again";
    }

    /** IDEMP0329: the request's JAX-RS caller note is of a type this library cannot read. */
    public static String unreadableCallerNote(Class<?> type) {
        return "IDEMP0329: the JAX-RS request's caller note is a " + type.getName() + " (class loader "
                + type.getClassLoader() + "), not the ContainerRequestContext or SecurityContext of the JAX-RS API"
                + " this library sees, so this call's caller cannot be read and nothing was executed: let the"
                + " application and the library see one JAX-RS API, the server's";
    }

    /** IDEMP0328: a duplicate's stored result cannot be read as the method's result type any more. */
    public static String storedResultUnreadable(String where, String keyHash, String type) {
        return "IDEMP0328: " + where + ": the stored result for key hash " + keyHash + " cannot be read as " + type
                + " (its class changed since the result was stored?); the call ran once and is not run again: the"
                + " duplicate gets this IdempotencyException until the record expires";
    }

    public static String resultNotReadBack(String where, String keyHash, String type) {
        return "IDEMP0327: " + where + ": the result for key hash " + keyHash + " was written as JSON-B but cannot be read"
                + " back as " + type + " (a property of an interface or abstract type, an Iterable that is no Collection?);"
                + " the call completed but is not stored: duplicates get IdempotencyException (result not stored) and"
                + " never run it again. Return a type JSON-B reads back: concrete classes or records, collections, Optional";
    }

    public static String resultNotStorable(String where, String keyHash) {
        return "IDEMP0308: " + where + ": the result for key hash " + keyHash + " could not be written as JSON-B; the call"
                + " completed but duplicates get IdempotencyException instead of a replayed value";
    }

    public static String resultLost(String where, String keyHash) {
        return "IDEMP0310: " + where + ": the call with this key (hash " + keyHash + ") committed, but its result never"
                + " reached the idempotency store (the node stopped in between); it is not executed again";
    }

    public static String responseLostAfterCommit(String endpoint, String keyHash) {
        return "IDEMP0408: " + endpoint + ": the work for key hash " + keyHash + " committed, but its response could"
                + " not be stored (it failed while being written); retries with this key get 410 response-lost once"
                + " the lease ran out, and the work is not executed again";
    }

    public static String ownershipLostBeforeCommit(String endpoint, String keyHash) {
        return "IDEMP0407: " + endpoint + ": the claim for key hash " + keyHash
                + " was no longer owned when the method's transaction was about to commit (the lease ran out and"
                + " another request took the key over); the transaction is rolled back. Raise the lease above the"
                + " slowest execution";
    }

    public static String listenerFailed(String outcome) {
        return "IDEMP0311: an observer of IdempotencyEvent (or the metrics counter) failed on a " + outcome
                + " event; the request's answer is unchanged";
    }

    public static String telemetryUnavailable(String why) {
        return "IDEMP0324: idempotency outcomes are not reported through OpenTelemetry: " + why
                + " (set idempotency.telemetry.enabled=false to silence this)";
    }

    public static String metricsUnavailable(String why) {
        return "IDEMP0312: idempotency outcomes are not counted as metrics: " + why
                + " (set idempotency.metrics.enabled=false to silence this)";
    }

    public static String tooManyTokens(int max, java.time.Duration ttl) {
        return "IDEMP0314: this caller was issued " + max + " idempotency tokens within " + ttl
                + " (idempotency.tokens.max-per-principal); use the tokens it holds, or ask again later";
    }

    public static String anonymousTokenRequest() {
        return "IDEMP0319: idempotency tokens are issued to authenticated callers only (all anonymous callers would"
                + " share them and their bound); authenticate, or set idempotency.tokens.anonymous=true";
    }

    public static String tokenNotKept(String keyHash) {
        return "IDEMP0315: the idempotency store did not keep the token (hash " + keyHash + ") it was given";
    }

    public static String unknownToken(String where) {
        return "IDEMP0316: " + where + ": the key is not a token issued to this caller, or it expired;"
                + " ask for a new token and send it as the key";
    }

    public static String ttlShorterThanTokens(String where, String ttl, java.time.Duration tokenTtl) {
        return "IDEMP0117: " + where + ": serverIssuedKeys=true with ttl=" + ttl + ", shorter than "
                + "idempotency.tokens.ttl=" + tokenTtl + "; allowed: a ttl of at least the token ttl, so that a used"
                + " token can never run again once the record of its use has expired";
    }

    public static String tieredFrontFailed(String operation, java.time.Duration pause) {
        return "IDEMP0317: the tiered store's fast layer (Infinispan) failed on " + operation + "; requests run on the"
                + " durable layer (JPA) alone, which decides every claim, and the fast layer is tried again in " + pause;
    }

    public static String tieredFrontRetried() {
        return "IDEMP0318: the tiered store tries its fast layer (Infinispan) again";
    }

    /**
     * IDEMP0204: two remote store modules in one application.
     *
     * @param storeClasses their store classes
     * @return the message
     */
    public static String severalRemoteStores(java.util.List<String> storeClasses) {
        return "IDEMP0204: " + storeClasses.size() + " remote idempotency store modules are in the application: "
                + String.join(" and ", storeClasses) + "; allowed: one of idempotency-infinispan and idempotency-redis"
                + " (with or without idempotency-jpa behind it). Remove the other module's jar from the application";
    }

    public static String tieredStore(String front, String back) {
        return "IDEMP0203: a remote store module and the JPA store module are in the application: the tiered store is used, " + front
                + " in front (fast claims and replays) and " + back + " behind it (the durable truth, joined to the"
                + " business transaction)";
    }

    public static String tokenFromSeveralKeyParts(String where, long parts) {
        return "IDEMP0151: " + where + ": serverIssuedKeys=true with " + parts + " @IdempotencyKey parameters, whose"
                + " values are joined into one key that no issued token can be, so every call would be refused; allowed:"
                + " exactly one @IdempotencyKey parameter (or property path), the token";
    }

    public static String tokensWithFailOpen(String where) {
        return "IDEMP0118: " + where + ": serverIssuedKeys=true with failOpen=true; allowed: one or the other (failing"
                + " open would run a request whose token nobody checked, and record no use of the token)";
    }

    public static String unknownConfiguredMember(String key, String value, java.util.Collection<String> members) {
        return "IDEMP0156: " + key + "='" + value + "' names no member of @Idempotent; allowed: "
                + String.join(", ", members) + " (spelled as the annotation's members, in the same case)";
    }

    public static String keyFromBodyNeverJson(String where, String key, String value, String neverJson) {
        return "IDEMP0157: " + where + ": " + key + "='" + value + "' reads the key from a JSON body, but with "
                + neverJson + " the body is never JSON, and every request would be refused without a key; allowed:"
                + " keyFromBody on a method taking JSON bodies (fingerprint BODY, JSON or NONE), or the key in a header"
                + " (keyHeader)";
    }

    public static String tokensOptional(String where) {
        return "IDEMP0155: " + where + ": serverIssuedKeys=true with required=false; allowed: required=true (the"
                + " default) or serverIssuedKeys=false (a request without a key would run with no token checked, every"
                + " time it is sent)";
    }

    public static String tokensLongerThanKeys(String where, int maxKeyLength, int tokenLength) {
        return "IDEMP0119: " + where + ": serverIssuedKeys=true, but idempotency.max-key-length=" + maxKeyLength
                + " refuses the " + tokenLength + "-character tokens; allowed: idempotency.max-key-length of at least "
                + tokenLength;
    }

    public static String invalidName(String where, String key, String value, int maxLength) {
        return "IDEMP0120: " + where + ": " + key + "=\"" + value + "\" is not a valid endpoint name; allowed: 1 to "
                + maxLength + " printable US-ASCII characters without spaces";
    }

    public static String nameTaken(String name, java.util.List<String> wheres) {
        return "IDEMP0121: the endpoint name \"" + name + "\" is used by " + String.join(" and ", wheres)
                + ", which would then share their keys; allowed: one name per method, or sharedName=true on each"
                + " of them when they are one operation on purpose";
    }

    public static String sharedNameKeySpaces(String name, java.util.List<String> wheres) {
        return "IDEMP0152: the endpoint name \"" + name + "\" is shared by " + String.join(" and ", wheres)
                + ", whose keys are made differently and would never meet; allowed: the same scope and serverIssuedKeys"
                + " on every method that shares a name";
    }

    /** IDEMP0162: methods sharing a name return different types; fails the deployment. */
    public static String sharedNameResults(String name, java.util.List<String> wheres) {
        return "IDEMP0162: the endpoint name \"" + name + "\" is shared by " + String.join(" and ", wheres)
                + ", whose results differ: a retry of one would be answered with the other's stored result read as its"
                + " own type, and not run; allowed: the same result type on every method that shares a name (a"
                + " primitive and its wrapper, a value and a CompletionStage of it count as the same)";
    }

    public static String callerFromPrincipalBean(java.util.Set<String> anonymousNames) {
        return "IDEMP0320: Jakarta Security is not available: non-HTTP callers are taken from the CDI Principal bean,"
                + " and a principal named one of " + new java.util.TreeSet<>(anonymousNames) + " counts as anonymous";
    }

    public static String missingTenant(String where, String source) {
        return "IDEMP0321: " + where + ": the call has no tenant (tenant source " + source + "), and its keys are scoped"
                + " by tenant; nothing was executed. Call it with a tenant, or choose another scope";
    }

    public static String authenticationRequired(String where) {
        return "IDEMP0322: " + where + ": the caller is anonymous, and this method needs an authenticated caller"
                + " (anonymous=REJECT, or a tenant taken from the credentials); nothing was executed";
    }

    public static String openApiNotDocumented() {
        return "IDEMP0313: the @Idempotent operations could not be documented in the OpenAPI document; it is served"
                + " without their Idempotency-Key header and problem responses";
    }

    public static String resultNotStored(String where, String keyHash) {
        return "IDEMP0309: " + where + ": the call with this key (hash " + keyHash + ") completed, but its result could not"
                + " be stored; it is not executed again";
    }

    public static String storeFailedOnInvocation(String where) {
        return "IDEMP0406: " + where + ": the idempotency store failed on claim; the method was not executed (fail closed)";
    }

    // --- 04xx: store failures and ownership ---------------------------------------------

    public static String storeFailedOnClaim(String endpoint, boolean failOpen) {
        return "IDEMP0401: " + endpoint + ": the idempotency store failed on claim; "
                + (failOpen ? "failOpen=true, so the method runs WITHOUT idempotency protection"
                        : "answered 503 and did not execute the method (fail closed)");
    }

    public static String storeFailedOnComplete(String endpoint, String keyHash) {
        return "IDEMP0402: " + endpoint + ": the idempotency store failed to record the outcome for key hash " + keyHash
                + "; the response was sent, retries get 409 until the lease ends and may then run again";
    }

    public static String ownershipLostOnComplete(String endpoint, String keyHash) {
        return "IDEMP0403: " + endpoint + ": the claim for key hash " + keyHash
                + " was no longer owned when the outcome was recorded (the lease ran out before the method finished);"
                + " raise the lease above the slowest execution";
    }

    public static String storeFailedOnRelease(String endpoint, String keyHash, boolean retried) {
        return "IDEMP0404: " + endpoint + ": the idempotency store failed to release the claim for key hash " + keyHash
                + (retried ? "; the release is retried in the background until the store answers (logged when it"
                        + " does), and at once when the key is claimed again on this node; until then retries with the"
                        + " key get 409 (410 once the lease of work marked executed ran out)"
                        : "; retries get 409 until the lease ends");
    }

    public static String stageNotSettled() {
        return "IDEMP0417: the claim of a stage that completed could not be settled (stored or released); the caller's"
                + " stage ends as the method's did, and the key is held until its lease ends";
    }

    public static String transactionOutcomeUnknown(String endpoint, String keyHash) {
        return "IDEMP0415: " + endpoint + ": the transaction manager cannot tell whether the transaction of the work"
                + " for key hash " + keyHash + " committed (STATUS_UNKNOWN); the claim is neither released nor completed:"
                + " the work is never run again with this key, retries get 409 and then 410 response-lost";
    }

    public static String markRepeated(String endpoint, String keyHash, boolean marked, Throwable firstFailure) {
        return "IDEMP0416: " + endpoint + ": the idempotency store failed to answer marking the work for key hash "
                + keyHash + " executed (" + firstFailure + "); asked again, it answered "
                + (marked ? "marked: the work commits"
                        : "not this request's claim any more (taken over, completed, expired, or lost by the store):"
                                + " the work rolls back");
    }

    public static String releasedOnRetry(String endpoint, String keyHash, int attempts, boolean released) {
        return "IDEMP0411: " + endpoint + ": the idempotency store answered the release of the claim for key hash "
                + keyHash + " at attempt " + attempts + (released ? ": released, a retry with the key runs again"
                        : ": the claim was no longer this request's (taken over, or gone), nothing changed");
    }

    public static String releaseRetriesGaveUp(String endpoint, String keyHash, int attempts) {
        return "IDEMP0412: " + endpoint + ": the idempotency store did not answer the release of the claim for key hash "
                + keyHash + " in " + attempts + " attempts, until the record's retention ran out; no more attempts";
    }

    public static String releaseRetriesFull(String endpoint, String keyHash, int maxPending) {
        return "IDEMP0413: " + endpoint + ": " + maxPending + " failed releases are being retried already; the claim for"
                + " key hash " + keyHash + " is not: it waits for its lease (or, marked executed, answers 410"
                + " response-lost until its ttl)";
    }

    public static String releaseRetriesDropped(int pending) {
        return "IDEMP0414: the application stops with " + pending + " failed release(s) of claims still being retried;"
                + " they wait for their lease (or, marked executed, answer 410 response-lost until their ttl)";
    }

    public static String inMemoryStoreFull(int maxEntries) {
        return "IDEMP0405: the in-memory idempotency store holds " + maxEntries
                + " live records (idempotency.memory.max-entries) and takes no new claims until some expire";
    }

    public static String storeFailedWhileWaiting(String endpoint) {
        return "IDEMP0410: " + endpoint + ": the idempotency store failed while a duplicate waited for the first"
                + " request's outcome; the duplicate was answered as in progress (409, or IdempotencyConflictException,"
                + " observed as CONFLICT)"
                + " and nothing was executed";
    }

    public static String inMemoryStoreFullByBytes(long maxBytes) {
        return "IDEMP0409: the in-memory idempotency store holds " + maxBytes
                + " bytes of live records (idempotency.memory.max-bytes) and takes no new claims until some expire";
    }
}
