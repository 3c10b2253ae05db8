package dev.idempotency.it.campaign;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * One logical request of a campaign's client, as the client saw it: its key and body, and every
 * attempt it made to get a definitive answer (the history the checker reads). Written by one
 * client thread at a time, read by the checker once the campaign has ended.
 */
final class Operation {

    /**
     * One attempt: which node, when, and what came back.
     *
     * @param node the node it was sent to (0 or 1)
     * @param startNanos when it was sent ({@link System#nanoTime()})
     * @param endNanos when its answer or failure came
     * @param status the HTTP status; {@link #NO_ANSWER} when the exchange failed (refused, reset,
     *     timed out): indefinite, the request may or may not have run
     * @param problemType the problem type's name (the last segment of its URI), or {@code null}
     * @param replayed whether it carried {@code Idempotent-Replayed: true}
     * @param body the bytes of a 2xx answer, {@code null} for the others
     */
    record Attempt(int node, long startNanos, long endNanos, int status, String problemType, boolean replayed, byte[] body) {

        /** No answer: the connection was refused or broke, or the client gave up waiting. */
        static final int NO_ANSWER = 0;

        /**
         * @return whether a client stops retrying on it: anything but no answer, {@code 409} and a
         *     5xx (a client SDK retries a 5xx with the same key, as Stripe's do)
         */
        boolean definitive() {
            return status != NO_ANSWER && status != 409 && status < 500;
        }

        /** @return whether it is a 2xx */
        boolean success() {
            return status / 100 == 2;
        }
    }

    final int client;
    final String key;
    final String orderId;
    final String body;
    /** For a key reused with another body: the order of the key's first body; otherwise {@code null}. */
    final String reusedFrom;
    private final List<Attempt> attempts = new ArrayList<>();

    Operation(int client, String key, String orderId, String body, String reusedFrom) {
        this.client = client;
        this.key = key;
        this.orderId = orderId;
        this.body = body;
        this.reusedFrom = reusedFrom;
    }

    synchronized void add(Attempt attempt) {
        attempts.add(attempt);
    }

    synchronized List<Attempt> attempts() {
        return List.copyOf(attempts);
    }

    /** @return the definitive answer, if it got one */
    synchronized Optional<Attempt> outcome() {
        return attempts.stream().filter(Attempt::definitive).findFirst();
    }

    /** @return whether this is another body sent with an earlier operation's key */
    boolean reuse() {
        return reusedFrom != null;
    }

    /** @return the 2xx bodies it received, as text */
    List<String> successBodies() {
        return attempts().stream().filter(Attempt::success).map(a -> new String(a.body(), StandardCharsets.UTF_8)).toList();
    }
}
