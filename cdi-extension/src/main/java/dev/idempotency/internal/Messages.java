package dev.idempotency.internal;

/**
 * Every coded message of the library in one place. Codes are stable: users search for them, and
 * the README's troubleshooting table lists them. Messages never contain raw keys or bodies.
 *
 * <p>Ranges: 01xx deployment (definitions and settings), 02xx store selection, 03xx requests,
 * 04xx store failures and ownership.
 */
public final class Messages {

    private Messages() {
    }

    // --- 01xx: deployment ---------------------------------------------------------------

    public static String invalidDuration(String where, String key, String value) {
        return "IDEMP0101: " + where + ": " + key + "='" + value
                + "' is not an ISO-8601 duration; allowed: a positive duration such as PT60S, PT24H or P7D";
    }

    public static String nonPositiveDuration(String where, String key, String value) {
        return "IDEMP0102: " + where + ": " + key + "='" + value + "' must be a positive duration (greater than zero)";
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

    public static String invalidHeaderName(String key, String value) {
        return "IDEMP0108: library setting " + key + "='" + value + "' is not an HTTP header name (RFC 9110 token)";
    }

    public static String notAResourceMethod(String bean, String method) {
        return "IDEMP0109: bean " + bean + ", method " + method + ": @Idempotent is only supported on JAX-RS resource"
                + " methods (annotated @GET, @POST, @PUT, @PATCH, @DELETE or another HTTP method designator) in this"
                + " version; a CDI or EJB method would not be protected, so remove the annotation or make it a resource method";
    }

    // --- 02xx: store selection ----------------------------------------------------------

    public static String inMemoryStoreInUse(int maxEntries) {
        return "IDEMP0201: the in-memory idempotency store is in use (max " + maxEntries
                + " records). It is SINGLE-NODE: keys claimed on one instance are unknown to the others, and"
                + " a restart forgets them. Add idempotency-jpa or idempotency-infinispan for several instances.";
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

    public static String claimReleasedAtRequestEnd(String endpoint, String keyHash) {
        return "IDEMP0302: " + endpoint + ": request for key hash " + keyHash
                + " ended without a response the library could record (unmapped exception?); the claim was released";
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

    public static String storeFailedOnRelease(String endpoint, String keyHash) {
        return "IDEMP0404: " + endpoint + ": the idempotency store failed to release the claim for key hash " + keyHash
                + "; retries get 409 until the lease ends";
    }

    public static String inMemoryStoreFull(int maxEntries) {
        return "IDEMP0405: the in-memory idempotency store holds " + maxEntries
                + " live records (idempotency.memory.max-entries) and takes no new claims until some expire";
    }
}
