package dev.idempotency.it.campaign;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads a campaign's whole history against the payment rows that committed, and lists every
 * broken promise, per rule. A store's documented window (a rule it may break while a given kind
 * of fault is on, as its page in docs/stores says) is counted and reported, not failed, where an
 * attempt with the key (with any of its bodies) was in flight during such a fault or within
 * {@link #WINDOW_MARGIN} after it (for an answer outside the contract: that very attempt); the
 * same break at any other time fails. A lingering window (a fault whose effect on the store can
 * outlast it, as a lock a killed node's peers keep) admits a break for the rest of the campaign
 * after such a fault began, but only where one of the breaking request's own attempts (so, before
 * its definitive answer) got no answer or a {@code 503 store-unavailable} after the fault began,
 * with no fault of the application's nodes on then or within {@link #WINDOW_MARGIN} before: the
 * stall is the store's, not a Payara node's pause or death.
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
    /** How many of a key's first and of its last attempts a timeline shows. */
    private static final int TIMELINE_ENDS = 3;
    /** How long after a fault healed a break it caused may still show (a failed commit's answer, say). */
    static final Duration WINDOW_MARGIN = Duration.ofSeconds(5);
    /** The faults of the application's own nodes: a request they stall is no store's lingering fault. */
    static final Set<String> APPLICATION_NODE_FAULTS = Set.of(CampaignNode.KILL, CampaignNode.FREEZE);

    /**
     * The outcome of a check.
     *
     * @param broken per rule, the keys (with what was seen) that broke it outside any window
     * @param inWindows per rule, the keys that broke it within a documented window
     * @param report the figures, for the log and the docs
     */
    record Verdict(Map<Rule, List<String>> broken, Map<Rule, List<String>> inWindows, String report) {

        /** @return the broken promises outside the store's windows, with examples */
        List<String> violations() {
            return examples(broken, rule -> rule + " (" + rule.meaning + ")");
        }

        /**
         * @return per rule broken only within its documented window, a line with a few of the keys and
         *     their timelines: a window that is used is still read, to see what happened
         */
        List<String> inWindowExamples() {
            return examples(inWindows, rule -> rule + " in its documented window");
        }

        /** @return per rule that some key broke, a line: its label, how many keys, the first few */
        private static List<String> examples(Map<Rule, List<String>> perRule,
                java.util.function.Function<Rule, String> label) {
            List<String> lines = new ArrayList<>();
            perRule.forEach((rule, keys) -> {
                if (!keys.isEmpty()) {
                    lines.add(label.apply(rule) + ": " + keys.size() + " keys, e.g. "
                            + keys.subList(0, Math.min(EXAMPLES, keys.size())));
                }
            });
            return lines;
        }

        /**
         * @param rule a rule
         * @return how many keys broke it within a documented window
         */
        int inWindow(Rule rule) {
            return inWindows.get(rule).size();
        }
    }

    private HistoryChecker() {
    }

    /**
     * @param operations the whole history
     * @param paymentIds the ids of the committed payment rows, per order
     * @param windows the rules the store under test may break, each with the kinds of fault during
     *     which it may
     * @param faults the faults injected
     * @return the verdict
     */
    static Verdict check(List<Operation> operations, Map<String, Set<String>> paymentIds, Map<Rule, Set<String>> windows,
            List<Nemesis.Injected> faults) {
        return check(operations, paymentIds, windows, Map.of(), faults);
    }

    /**
     * @param operations the whole history
     * @param paymentIds the ids of the committed payment rows, per order
     * @param windows the rules the store under test may break, each with the kinds of fault during
     *     which it may
     * @param lingering the rules it may break, each with the kinds of fault after which it may for
     *     the rest of the campaign, where the request stalled or was refused by the store with no
     *     other fault about
     * @param faults the faults injected
     * @return the verdict
     */
    static Verdict check(List<Operation> operations, Map<String, Set<String>> paymentIds, Map<Rule, Set<String>> windows,
            Map<Rule, Set<String>> lingering, List<Nemesis.Injected> faults) {
        Map<Rule, List<String>> broken = perRule();
        Map<Rule, List<String>> inWindows = perRule();
        Map<String, Long> answers = new TreeMap<>();
        long attempts = 0;
        long keys = 0;
        long reuses = 0;
        // every attempt made with each key, its first body's and any other body's
        Map<String, List<Operation.Attempt>> perKey = new HashMap<>();
        operations.forEach(op -> perKey.computeIfAbsent(op.key, key -> new ArrayList<>()).addAll(op.attempts()));
        long origin = operations.stream().flatMap(op -> op.attempts().stream()).mapToLong(Operation.Attempt::startNanos)
                .min().orElse(0);
        for (Operation op : operations) {
            Set<String> rows = paymentIds.getOrDefault(op.orderId, Set.of());
            String where = op.key + " (order " + op.orderId + ")";
            List<Operation.Attempt> tried = op.attempts();
            if (tried.isEmpty()) {
                continue; // begun as the clients were stopped, never sent
            }
            List<Operation.Attempt> withTheKey = perKey.get(op.key);
            Breaks breaks = (rule, during, seen) -> {
                Set<String> kinds = windows.getOrDefault(rule, Set.of());
                boolean admitted = faults.stream().filter(fault -> kinds.contains(fault.kind())).anyMatch(fault -> during.stream()
                        .anyMatch(attempt -> fault.overlaps(attempt.startNanos(), attempt.endNanos(), WINDOW_MARGIN)));
                String lingered = admitted ? null : lingeringFault(tried, lingering.getOrDefault(rule, Set.of()), faults, origin);
                (admitted || lingered != null ? inWindows : broken).get(rule).add(where + ": " + seen + "; "
                        + timeline(during, faults, origin) + (lingered == null ? "" : ", after " + lingered));
            };
            attempts += tried.size();
            for (Operation.Attempt attempt : tried) {
                answers.merge(label(attempt), 1L, Long::sum);
                if (!expected(attempt)) {
                    breaks.add(attempt.status() < 500 ? Rule.UNEXPECTED_ANSWER : Rule.SERVER_ERROR, List.of(attempt),
                            label(attempt));
                }
            }
            if (rows.isEmpty() && tried.stream().anyMatch(attempt -> attempt.status() == 410)) {
                breaks.add(Rule.LOST_WITHOUT_ROW, withTheKey, "no row");
            }
            if (op.outcome().isEmpty()) {
                breaks.add(Rule.UNRESOLVED, withTheKey, tried.size() + " attempts, last " + label(tried.get(tried.size() - 1)));
            }
            List<String> bodies = op.successBodies();
            if (op.reuse()) {
                reuses++;
                if (!rows.isEmpty() || !bodies.isEmpty()) {
                    breaks.add(Rule.REUSED_BODY_RAN, withTheKey, rows.size() + " rows, " + bodies.size() + " x 2xx");
                }
                continue;
            }
            keys++;
            if (rows.size() > 1) {
                breaks.add(Rule.EXECUTED_TWICE, withTheKey, rows.size() + " rows");
            }
            if (bodies.stream().distinct().count() > 1) {
                breaks.add(Rule.DIFFERENT_ANSWERS, withTheKey, bodies.stream().distinct().toList().toString());
            }
            for (String body : bodies.stream().distinct().toList()) {
                Matcher id = PAYMENT_ID.matcher(body);
                if (!id.find() || !rows.contains(id.group(1))) {
                    breaks.add(Rule.SUCCESS_WITHOUT_ROW, withTheKey, "answered " + body + ", rows " + rows);
                }
            }
        }
        long paid = operations.stream().filter(op -> !op.reuse() && paymentIds.containsKey(op.orderId)).count();
        StringBuilder report = new StringBuilder()
                .append(attempts).append(" requests for ").append(keys).append(" keys and ").append(reuses)
                .append(" reuses of a key with another body; faults ").append(Nemesis.counts(faults))
                .append("; answers ").append(answers)
                .append("; keys paid ").append(paid);
        for (Rule rule : Rule.values()) {
            report.append("; ").append(rule).append(' ').append(broken.get(rule).size());
            if (!inWindows.get(rule).isEmpty()) {
                List<String> admitting = new ArrayList<>(windows.getOrDefault(rule, Set.of()));
                lingering.getOrDefault(rule, Set.of()).forEach(kind -> admitting.add("after " + kind + ", for a key the store stalled on or refused"));
                report.append(" and ").append(inWindows.get(rule).size()).append(" in its documented window (")
                        .append(String.join(", ", admitting)).append(')');
            }
        }
        return new Verdict(broken, inWindows, report.toString());
    }

    /**
     * Files a broken rule for the key at hand: in a window if one of the given attempts (for a
     * rule about the key, any made with it; for an answer, that one) met a fault of its kinds.
     */
    private interface Breaks {
        void add(Rule rule, List<Operation.Attempt> during, String seen);
    }

    private static Map<Rule, List<String>> perRule() {
        Map<Rule, List<String>> perRule = new EnumMap<>(Rule.class);
        Arrays.stream(Rule.values()).forEach(rule -> perRule.put(rule, new ArrayList<>()));
        return perRule;
    }

    /**
     * @return the lingering fault that admits a break of a request, as the timeline prints it, or
     *     {@code null}: one of the request's own attempts got no answer or the store's {@code 503}
     *     after such a fault began, with no fault of the application's nodes on or just over then
     */
    private static String lingeringFault(List<Operation.Attempt> tried, Set<String> lingers, List<Nemesis.Injected> faults,
            long origin) {
        long answeredAt = tried.stream().filter(Operation.Attempt::definitive).mapToLong(Operation.Attempt::startNanos)
                .min().orElse(Long.MAX_VALUE);
        for (Nemesis.Injected fault : faults) {
            if (!lingers.contains(fault.kind())) {
                continue;
            }
            boolean stalledAfter = tried.stream()
                    .filter(attempt -> attempt.endNanos() >= fault.startNanos() && attempt.endNanos() <= answeredAt)
                    .filter(HistoryChecker::stalledOrRefused)
                    .anyMatch(attempt -> faults.stream().filter(other -> APPLICATION_NODE_FAULTS.contains(other.kind()))
                            .noneMatch(other -> other.overlaps(attempt.startNanos(), attempt.endNanos(), WINDOW_MARGIN)));
            if (stalledAfter) {
                return String.format(Locale.ROOT, "[%s %s..%s]", fault.kind(), seconds(fault.startNanos(), origin),
                        seconds(fault.endNanos(), origin));
            }
        }
        return null;
    }

    /** @return whether the attempt got no answer (the client's timeout, a refused or broken connection) or the store's {@code 503} */
    private static boolean stalledOrRefused(Operation.Attempt attempt) {
        return attempt.status() == Operation.Attempt.NO_ANSWER
                || attempt.status() == 503 && "store-unavailable".equals(attempt.problemType());
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

    /**
     * @return when the attempts ran and which faults were on then or in the margin after, in
     *     seconds from the first attempt of the history: what a failing run needs to be read
     */
    private static String timeline(List<Operation.Attempt> attempts, List<Nemesis.Injected> faults, long origin) {
        StringBuilder line = new StringBuilder("attempts");
        for (int i = 0; i < attempts.size(); i++) {
            // a key retried through a long outage has hundreds of attempts: its first and last ones tell the story
            if (i == TIMELINE_ENDS && attempts.size() > 2 * TIMELINE_ENDS) {
                line.append(" [").append(attempts.size() - 2 * TIMELINE_ENDS).append(" more]");
                i = attempts.size() - TIMELINE_ENDS;
            }
            Operation.Attempt attempt = attempts.get(i);
            line.append(String.format(Locale.ROOT, " [node %d %s..%s: %s]", attempt.node(), seconds(attempt.startNanos(), origin),
                    seconds(attempt.endNanos(), origin), label(attempt)));
        }
        line.append(", faults near them");
        faults.stream().filter(fault -> attempts.stream()
                .anyMatch(attempt -> fault.overlaps(attempt.startNanos(), attempt.endNanos(), WINDOW_MARGIN)))
                .forEach(fault -> line.append(String.format(Locale.ROOT, " [%s %s..%s]", fault.kind(), seconds(fault.startNanos(), origin),
                        seconds(fault.endNanos(), origin))));
        return line.toString();
    }

    private static String seconds(long nanos, long origin) {
        return String.format(Locale.ROOT, "%.1fs", (nanos - origin) / 1e9);
    }

    private static String label(Operation.Attempt attempt) {
        if (attempt.status() == Operation.Attempt.NO_ANSWER) {
            return "no answer";
        }
        return attempt.status() + (attempt.problemType() == null ? "" : " " + attempt.problemType())
                + (attempt.replayed() ? " replayed" : "");
    }
}
