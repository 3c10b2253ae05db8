package dev.idempotency.redis;

import java.time.Duration;

/**
 * Every coded message of the Redis store, in one place (codes {@code IDEMP0800} to
 * {@code IDEMP0899}), so that users can search for them. A settings message names the key, the
 * value and what is allowed; a failure message names the operation, never a raw key or a body.
 */
final class RedisMessages {

    /** How deep a cause chain is followed: a cycle (a cause set to an earlier one) must not hang a message. */
    private static final int MAX_CAUSES = 16;

    private RedisMessages() {
    }

    private static String setting(String code, String key, String value, String allowed) {
        return code + ": library setting " + key + "='" + value + "' is not allowed; allowed: " + allowed;
    }

    static String badUri(String key, String value, String why) {
        return setting("IDEMP0801", key, value, "one or several comma-separated redis://[user:password@]host[:port]"
                + " or rediss://... URIs (" + why + ")");
    }

    static String badSentinelMaster(String key, String value) {
        return setting("IDEMP0815", key, value, "the name under which the Sentinels monitor the master (sentinel monitor"
                + " <name> ...): printable ASCII without spaces");
    }

    static String sentinelConflict(String key, String value, String sentinelKey, String why) {
        return setting("IDEMP0816", key, value, "with " + sentinelKey + " (the master found through Sentinels) not "
                + why);
    }

    static String severalUrisWithoutCluster(String key, String value, String clusterKey) {
        return setting("IDEMP0802", key, value, "one URI while " + clusterKey + "=false (several URIs are the seeds"
                + " of a Redis Cluster: leave out " + clusterKey + " or set it to true)");
    }

    static String badBoolean(String key, String value) {
        return setting("IDEMP0803", key, value, "true or false");
    }

    static String badTimeout(String key, String value, Duration max) {
        return setting("IDEMP0804", key, value, "an ISO-8601 duration above zero and at most " + max
                + ", e.g. PT2S or PT0.5S");
    }

    static String badKeyPrefix(String key, String value, int max) {
        return setting("IDEMP0805", key, value, "at most " + max + " printable ASCII characters without spaces and"
                + " without '{' or '}' (a hash tag would put every record in one cluster slot)");
    }

    static String badDatabase(String key, String value) {
        return setting("IDEMP0806", key, value, "a whole number, 0 or more (the server decides how many it has)");
    }

    static String databaseOnCluster(String key, String value) {
        return setting("IDEMP0807", key, value, "no database on a Redis Cluster (it has database 0 only): leave out "
                + key + " or connect to a single node");
    }

    static String badWaitReplicas(String key, String value, int max) {
        return setting("IDEMP0808", key, value, "a whole number from 0 (do not wait) to " + max);
    }

    static String badWaitTimeout(String key, String value, Duration max) {
        return setting("IDEMP0809", key, value, "an ISO-8601 duration above zero and at most " + max
                + " (WAIT with 0 would block for ever)");
    }

    static String userWithoutPassword(String key, String value, String passwordKey) {
        return setting("IDEMP0810", key, value, "a user together with " + passwordKey + " (an ACL user always"
                + " authenticates with a password)");
    }

    static String tlsConflict(String key, String value, String uris) {
        return setting("IDEMP0811", key, value, "true, or leave it out, when the URIs (" + uris + ") use rediss://; every"
                + " URI of a cluster the same scheme");
    }

    static String trustWithoutTls(String key, String value, String tlsKey) {
        return setting("IDEMP0813", key, value, "a file of certificates to trust only with TLS: set " + tlsKey
                + "=true or use rediss:// URIs, or leave it out");
    }

    static String badTrustCertificates(String key, String value, String why) {
        return setting("IDEMP0814", key, value, "the path of a readable PEM file with one or more X.509 certificates"
                + " (-----BEGIN CERTIFICATE-----); " + why);
    }

    static String uriWithPathOrQuery(String key, String value) {
        return setting("IDEMP0812", key, value, "URIs without a path or query: choose the database with"
                + " idempotency.redis.database and the timeout with idempotency.redis.timeout");
    }

    static String storeFailed(String operation, Throwable cause) {
        return "IDEMP0820: the Redis store failed on " + operation + ": " + cause.getClass().getSimpleName()
                + (cause.getMessage() == null ? "" : ": " + cause.getMessage());
    }

    static String timedOut(String operation, Duration timeout) {
        return "IDEMP0821: the Redis store did not answer " + operation + " within " + timeout
                + " (idempotency.redis.timeout)";
    }

    static String tooFewReplicas(String operation, long acknowledged, int wanted, Duration waitTimeout, boolean undone) {
        return "IDEMP0822: the Redis store's " + operation + " reached " + acknowledged + " replica(s) within "
                + waitTimeout + ", not the " + wanted + " that idempotency.redis.wait-replicas asks for"
                + (undone ? "; the claim was given back" : "") + " (failing closed)";
    }

    static String unknownFormat(int format) {
        return "IDEMP0823: a Redis record has format " + format + ", which this version of the store does not read"
                + " (it reads format " + RedisRecordFormat.FORMAT + "): written by a newer version? failing closed";
    }

    static String unexpectedAnswer(String operation, Object answer) {
        return "IDEMP0824: the Redis store's script for " + operation + " answered " + answer
                + ", which this version does not understand";
    }

    static String cannotConnect(String where, Throwable cause) {
        // the root names what went wrong below the client's "unable to connect": a refused port, a
        // TLS handshake (an untrusted certificate, another host's), an authentication
        return "IDEMP0825: the Redis store cannot connect to " + where + ": " + describeWithCause(cause);
    }

    /** @return the failure's class and message and, when it has causes, its root cause's */
    static String describeWithCause(Throwable failure) {
        Throwable root = failure;
        for (int depth = 0; depth < MAX_CAUSES && root.getCause() != null; depth++) {
            root = root.getCause();
        }
        return describe(failure) + (root == failure ? "" : ", caused by " + describe(root));
    }

    private static String describe(Throwable failure) {
        return failure.getClass().getSimpleName() + (failure.getMessage() == null ? "" : ": " + failure.getMessage());
    }

    static String tooLong(String what, int length, int max) {
        return "IDEMP0826: a " + what + " of " + length + " bytes does not fit a Redis record (at most " + max + ")";
    }

    static String connected(String where, boolean cluster, int scripts) {
        return "IDEMP0827: the Redis store is connected to " + where + (cluster ? " (Redis Cluster)" : "") + "; "
                + scripts + " scripts loaded";
    }

    static String unsupportedClient(Class<?> type) {
        return "IDEMP0828: the @IdempotencyRedisClient bean is a " + type.getName()
                + "; allowed: an io.lettuce.core.RedisClient or an io.lettuce.core.cluster.RedisClusterClient";
    }

    static String interrupted(String operation) {
        return "IDEMP0829: interrupted while waiting for the Redis store's answer to " + operation;
    }

    static String notReachableAtStart(String why) {
        return "IDEMP0830: the Redis store could not connect at deployment; it tries again on first use (until then"
                + " idempotent calls fail closed): " + why;
    }

    static String evictionRefused(String node, String policy, String allowKey) {
        return "IDEMP0831: the Redis store refuses " + node + ": its maxmemory-policy is " + policy
                + ", so Redis may evict records under memory pressure and silently free keys whose work is in progress or"
                + " done (a retry would run again); allowed: maxmemory-policy noeviction (a full Redis then fails writes"
                + " closed), or " + allowKey + "=true to accept the risk; every call fails closed until then";
    }

    static String evictionAllowed(String node, String policy, String allowKey) {
        return "IDEMP0832: " + node + " has maxmemory-policy " + policy + ": Redis may evict records under memory"
                + " pressure and a retry of an evicted key runs again; used anyway because " + allowKey + "=true";
    }

    static String atLeastOnceClient(String waitKey) {
        return "IDEMP0833: the @IdempotencyRedisClient client has autoReconnect on (Lettuce's at-least-once mode:"
                + " after a reconnect it sends commands again on a new connection), and " + waitKey + " is above 0: a"
                + " WAIT sent on a new connection counts none of the writes before it and may report replicas that never"
                + " got them; give that client ClientOptions.autoReconnect(false), or let the store create its own client"
                + " from the idempotency.redis.* settings (its waited writes use connections that never reconnect)";
    }

    static String closed() {
        return "IDEMP0834: the Redis store is closed (the application is stopping); no call reaches Redis any more";
    }

    static String connecting(String where) {
        return "IDEMP0835: the Redis store is connecting to " + where + " (or checking it) on another call; this call"
                + " fails closed rather than wait in line (a check after a reconnect is waited for up to the timeout)";
    }

    static String waitFailed(String operation, String why, int wanted, boolean undone) {
        return "IDEMP0836: the WAIT after the Redis store's " + operation + " got no answer (" + why + "): whether "
                + wanted + " replica(s) have the write is unknown" + (undone ? "; the claim was given back" : "")
                + " (failing closed)";
    }
}
