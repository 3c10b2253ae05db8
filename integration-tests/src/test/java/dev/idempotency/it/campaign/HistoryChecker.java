package dev.idempotency.it.campaign;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads a campaign's whole history against the payment rows that committed, and lists every
 * broken promise, per rule. A store's documented window (a rule it may break, as its page in
 * docs/stores says) is counted and reported, not failed.
 */
final class HistoryChecker {

    /** The promises checked, for every key. */
    enum Rule {
        /** At most one committed payment row per key. */
        EXECUTED_TWICE("a key's payment committed more than once"),
        /** Every 2xx a client received for a key carries the same bytes: the replay of the one execution. */
        DIFFERENT_ANSWERS("two 2xx answers for one key differ"),
        /** No 2xx without its row: the answer names the payment that committed. */
        SUCCESS_WITHOUT_ROW("a 2xx whose payment did not commit"),
        /** A key reused with another body never ran that body, and never answered it with a 2xx. */
        REUSED_BODY_RAN("a key reused with another body ran it or answered it with a 2xx"),
        /** {@code 410 response-lost} only where the payment committed. */
        LOST_WITHOUT_ROW("410 response-lost for a payment that never committed"),
        /** No 5xx but {@code 503 store-unavailable}. */
        SERVER_ERROR("a 5xx other than 503 store-unavailable"),
        /**
         * A 5xx other than {@code 503 store-unavailable} answered while the database was being
         * killed, or within {@link #CRASH_MARGIN_NANOS} after: the server's own {@code 500} for a
         * transaction whose commit met the database's death. Told apart from
         * {@link #SERVER_ERROR} so that a store may document it as a window.
         */
        SERVER_ERROR_IN_DATABASE_CRASH("a 5xx other than 503 store-unavailable, while the database was killed"),
        /**
         * Only the other answers of the contract: 2xx, {@code 409} (in progress), {@code 410}
         * (response lost), {@code 422} (key reused).
         */
        UNEXPECTED_ANSWER("a 4xx outside the contract (400, 404, ...)"),
        /** Once the faults are healed, every key gets a definitive answer. */
        UNRESOLVED("no definitive answer once the faults had healed");

        final String meaning;

        Rule(String meaning) {
            this.meaning = meaning;
        }
    }

    private static final Pattern PAYMENT_ID = Pattern.compile("\"id\"\\s*:\\s*\"([^\"]+)\"");
    private static final int EXAMPLES = 5;
    /** How long after a database kill healed its failed commits may still answer. */
    static final long CRASH_MARGIN_NANOS = 5_000_000_000L;

    /**
     * The outcome of a check.
     *
     * @param broken per rule, the keys (with what was seen) that broke it
     * @param admitted the rules the store under test may break (its documented windows)
     * @param report the figures, for the log and the docs
     */
    record Verdict(Map<Rule, List<String>> broken, Set<Rule> admitted, String report) {

        /** @return the broken promises the store does not admit, with examples */
        List<String> violations() {
            List<String> violations = new ArrayList<>();
            broken.forEach((rule, keys) -> {
                if (!keys.isEmpty() && !admitted.contains(rule)) {
                    violations.add(rule + " (" + rule.meaning + "): " + keys.size() + " keys, e.g. "
                            + keys.subList(0, Math.min(EXAMPLES, keys.size())));
                }
            });
            return violations;
        }

        /** @return how many keys broke a rule */
        int count(Rule rule) {
            return broken.get(rule).size();
        }
    }

    private HistoryChecker() {
    }

    /**
     * @param operations the whole history
     * @param paymentIds the ids of the committed payment rows, per order
     * @param admitted the rules the store under test may break
     * @param faults the faults injected
     * @param databaseCrashes the kinds of fault that kill the payments' database
     * @return the verdict
     */
    static Verdict check(List<Operation> operations, Map<String, Set<String>> paymentIds, Set<Rule> admitted,
            List<Nemesis.Injected> faults, Set<String> databaseCrashes) {
        List<Nemesis.Injected> crashes = faults.stream().filter(fault -> databaseCrashes.contains(fault.kind())).toList();
        Map<String, Long> faultCounts = Nemesis.counts(faults);
        Map<Rule, List<String>> broken = new EnumMap<>(Rule.class);
        Arrays.stream(Rule.values()).forEach(rule -> broken.put(rule, new ArrayList<>()));
        Map<String, Long> answers = new TreeMap<>();
        long attempts = 0;
        long keys = 0;
        long reuses = 0;
        for (Operation op : operations) {
            Set<String> rows = paymentIds.getOrDefault(op.orderId, Set.of());
            String where = op.key + " (order " + op.orderId + ")";
            List<Operation.Attempt> tried = op.attempts();
            attempts += tried.size();
            for (Operation.Attempt attempt : tried) {
                answers.merge(label(attempt), 1L, Long::sum);
                if (!expected(attempt)) {
                    Rule rule = attempt.status() < 500 ? Rule.UNEXPECTED_ANSWER
                            : crashes.stream().anyMatch(crash -> attempt.endNanos() >= crash.startNanos()
                                    && attempt.startNanos() <= crash.endNanos() + CRASH_MARGIN_NANOS)
                                            ? Rule.SERVER_ERROR_IN_DATABASE_CRASH
                                            : Rule.SERVER_ERROR;
                    broken.get(rule).add(where + ": " + label(attempt));
                }
                if (attempt.status() == 410 && rows.isEmpty()) {
                    broken.get(Rule.LOST_WITHOUT_ROW).add(where);
                }
            }
            if (op.outcome().isEmpty()) {
                broken.get(Rule.UNRESOLVED).add(where + ": " + tried.size() + " attempts, last " + label(tried.get(tried.size() - 1)));
            }
            List<String> bodies = op.successBodies();
            if (op.reuse()) {
                reuses++;
                if (!rows.isEmpty() || !bodies.isEmpty()) {
                    broken.get(Rule.REUSED_BODY_RAN).add(where + ": " + rows.size() + " rows, " + bodies.size() + " x 2xx");
                }
                continue;
            }
            keys++;
            if (rows.size() > 1) {
                broken.get(Rule.EXECUTED_TWICE).add(where + ": " + rows.size() + " rows");
            }
            if (bodies.stream().distinct().count() > 1) {
                broken.get(Rule.DIFFERENT_ANSWERS).add(where + ": " + bodies.stream().distinct().toList());
            }
            for (String body : bodies.stream().distinct().toList()) {
                Matcher id = PAYMENT_ID.matcher(body);
                if (!id.find() || !rows.contains(id.group(1))) {
                    broken.get(Rule.SUCCESS_WITHOUT_ROW).add(where + ": answered " + body + ", rows " + rows);
                }
            }
        }
        long paid = operations.stream().filter(op -> !op.reuse() && paymentIds.containsKey(op.orderId)).count();
        StringBuilder report = new StringBuilder()
                .append(attempts).append(" requests for ").append(keys).append(" keys and ").append(reuses)
                .append(" reuses of a key with another body; faults ").append(faultCounts)
                .append("; answers ").append(answers)
                .append("; keys paid ").append(paid);
        for (Rule rule : Rule.values()) {
            report.append("; ").append(rule).append(' ').append(broken.get(rule).size())
                    .append(admitted.contains(rule) && !broken.get(rule).isEmpty() ? " (a documented window)" : "");
        }
        return new Verdict(broken, Set.copyOf(admitted), report.toString());
    }

    private static boolean expected(Operation.Attempt attempt) {
        return switch (attempt.status()) {
            case Operation.Attempt.NO_ANSWER -> true;
            case 409 -> "request-in-progress".equals(attempt.problemType());
            case 410 -> "response-lost".equals(attempt.problemType());
            case 422 -> "key-reused".equals(attempt.problemType());
            case 503 -> "store-unavailable".equals(attempt.problemType());
            default -> attempt.success();
        };
    }

    private static String label(Operation.Attempt attempt) {
        if (attempt.status() == Operation.Attempt.NO_ANSWER) {
            return "no answer";
        }
        return attempt.status() + (attempt.problemType() == null ? "" : " " + attempt.problemType())
                + (attempt.replayed() ? " replayed" : "");
    }
}
