package dev.idempotency.it.campaign;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;

import dev.idempotency.it.campaign.HistoryChecker.Rule;

/** The checker on histories written by hand: each promise it reads, and a window that counts only while its fault is on. */
class HistoryCheckerTest {

    private static final long SECOND = 1_000_000_000L;
    private static final String KILL = "kill -9 PostgreSQL";
    /** The fault injected in every history below: from second 10 to second 12. */
    private static final List<Nemesis.Injected> FAULTS = List.of(new Nemesis.Injected(KILL, "held 2000 ms", 10 * SECOND,
            12 * SECOND));
    /** The same fault, then an application node frozen from second 70 to 72. */
    private static final List<Nemesis.Injected> WITH_A_NODE_PAUSE = List.of(FAULTS.get(0),
            new Nemesis.Injected(CampaignNode.FREEZE, "held 2000 ms", 70 * SECOND, 72 * SECOND));

    @Test
    void aKeyPaidOnceAndReplayedBreaksNothing() {
        Operation op = op("k1", "o-1", null);
        op.add(answer(1, 201, false, "{\"id\":\"p1\",\"orderId\":\"o-1\"}"));
        op.add(answer(2, 201, true, "{\"id\":\"p1\",\"orderId\":\"o-1\"}"));

        HistoryChecker.Verdict verdict = HistoryChecker.check(List.of(op), Map.of("o-1", Set.of("p1")), Map.of(), FAULTS);

        assertThat(verdict.violations()).isEmpty();
        assertThat(verdict.report()).contains("2 requests for 1 keys", "keys paid 1");
    }

    @Test
    void twoRowsForAKeyAndTwoDifferentAnswersAreBroken() {
        Operation op = op("k1", "o-1", null);
        op.add(answer(1, 201, false, "{\"id\":\"p1\"}"));
        op.add(answer(30, 201, false, "{\"id\":\"p2\"}"));

        HistoryChecker.Verdict verdict = HistoryChecker.check(List.of(op), Map.of("o-1", Set.of("p1", "p2")), Map.of(),
                FAULTS);

        assertThat(verdict.violations()).hasSize(2).anySatisfy(v -> assertThat(v).startsWith("EXECUTED_TWICE"))
                .anySatisfy(v -> assertThat(v).startsWith("DIFFERENT_ANSWERS"));
    }

    @Test
    void aServerErrorIsInTheWindowOnlyWhileItsFaultIsOnOrJustHealed() {
        Operation during = op("k1", "o-1", null);
        during.add(answer(11, 500, false, null));
        during.add(answer(13, 201, false, "{\"id\":\"p1\"}"));
        Operation justAfter = op("k2", "o-2", null);
        justAfter.add(answer(12 + 4, 500, false, null));
        justAfter.add(answer(18, 201, false, "{\"id\":\"p2\"}"));
        Operation longAfter = op("k3", "o-3", null);
        longAfter.add(answer(30, 500, false, null));
        longAfter.add(answer(31, 201, false, "{\"id\":\"p3\"}"));

        HistoryChecker.Verdict verdict = HistoryChecker.check(List.of(during, justAfter, longAfter),
                Map.of("o-1", Set.of("p1"), "o-2", Set.of("p2"), "o-3", Set.of("p3")),
                Map.of(Rule.SERVER_ERROR, Set.of(KILL)), FAULTS);

        assertThat(verdict.inWindow(Rule.SERVER_ERROR)).isEqualTo(2);
        assertThat(verdict.violations()).singleElement().asString().startsWith("SERVER_ERROR").contains("k3");
        assertThat(verdict.report()).contains("SERVER_ERROR 1 and 2 in its documented window (" + KILL + ")");
    }

    @Test
    void aServerErrorBeforeTheFaultOrLongAfterItIsBrokenEvenForAKeyThatMetTheFault() {
        Operation before = op("k1", "o-1", null);
        before.add(answer(5, 500, false, null));
        before.add(answer(6, 201, false, "{\"id\":\"p1\"}"));
        Operation metItThenFailedLater = op("k2", "o-2", null);
        metItThenFailedLater.add(new Operation.Attempt(0, 10 * SECOND, 11 * SECOND, Operation.Attempt.NO_ANSWER, null, false,
                null));
        metItThenFailedLater.add(answer(30, 500, false, null));
        metItThenFailedLater.add(answer(31, 201, false, "{\"id\":\"p2\"}"));

        HistoryChecker.Verdict verdict = HistoryChecker.check(List.of(before, metItThenFailedLater),
                Map.of("o-1", Set.of("p1"), "o-2", Set.of("p2")), Map.of(Rule.SERVER_ERROR, Set.of(KILL)), FAULTS);

        assertThat(verdict.inWindow(Rule.SERVER_ERROR)).isZero();
        assertThat(verdict.violations()).singleElement().asString().startsWith("SERVER_ERROR (").contains("2 keys");
    }

    @Test
    void aResponseLostWithoutARowIsInTheWindowWhenOneOfTheKeysAttemptsMetTheFault() {
        Operation killedMidRequest = op("k1", "o-1", null);
        killedMidRequest.add(new Operation.Attempt(0, 9 * SECOND, 11 * SECOND, Operation.Attempt.NO_ANSWER, null, false,
                null));
        killedMidRequest.add(answer(40, 410, false, null));
        Operation neverMetIt = op("k2", "o-2", null);
        neverMetIt.add(answer(25, 410, false, null));

        HistoryChecker.Verdict verdict = HistoryChecker.check(List.of(killedMidRequest, neverMetIt), Map.of(),
                Map.of(Rule.LOST_WITHOUT_ROW, Set.of(KILL)), FAULTS);

        assertThat(verdict.inWindow(Rule.LOST_WITHOUT_ROW)).isEqualTo(1);
        assertThat(verdict.violations()).singleElement().asString().startsWith("LOST_WITHOUT_ROW").contains("k2")
                .doesNotContain("k1");
    }

    @Test
    void aResponseLostWithoutARowLingersAfterItsFaultOnlyForARequestTheStoreStalledOnOrRefusedByItself() {
        Operation stalledLongAfter = op("k1", "o-1", null);
        stalledLongAfter.add(new Operation.Attempt(0, 40 * SECOND, 43 * SECOND, Operation.Attempt.NO_ANSWER, null, false,
                null));
        stalledLongAfter.add(answer(60, 410, false, null));
        Operation refusedLongAfter = op("k2", "o-2", null);
        refusedLongAfter.add(new Operation.Attempt(0, 40 * SECOND, 41 * SECOND, 503, "store-unavailable", false, null));
        refusedLongAfter.add(answer(60, 410, false, null));
        Operation answeredLongAfter = op("k3", "o-3", null);
        answeredLongAfter.add(new Operation.Attempt(0, 40 * SECOND, 41 * SECOND, 409, "request-in-progress", false, null));
        answeredLongAfter.add(answer(60, 410, false, null));
        Operation stalledBeforeTheFault = op("k4", "o-4", null);
        stalledBeforeTheFault.add(new Operation.Attempt(0, 2 * SECOND, 5 * SECOND, 503, "store-unavailable", false, null));
        stalledBeforeTheFault.add(answer(7, 410, false, null));
        Operation stalledByAnotherFault = op("k5", "o-5", null);
        stalledByAnotherFault.add(new Operation.Attempt(0, 70 * SECOND, 73 * SECOND, Operation.Attempt.NO_ANSWER, null,
                false, null));
        stalledByAnotherFault.add(answer(90, 410, false, null));
        Operation lostItself = op("k6", "o-6", null);
        lostItself.add(answer(30, 410, false, null));
        Operation reuseStalledLater = op("k6", "o-6b", "o-6");
        reuseStalledLater.add(new Operation.Attempt(0, 40 * SECOND, 43 * SECOND, Operation.Attempt.NO_ANSWER, null, false,
                null));
        reuseStalledLater.add(new Operation.Attempt(0, 44 * SECOND, 45 * SECOND, 422, "key-reused", false, null));
        Operation stalledOnlyAfterItsAnswer = op("k7", "o-7", null);
        stalledOnlyAfterItsAnswer.add(answer(20, 410, false, null));
        stalledOnlyAfterItsAnswer.add(new Operation.Attempt(0, 40 * SECOND, 43 * SECOND, Operation.Attempt.NO_ANSWER, null,
                false, null));

        HistoryChecker.Verdict verdict = HistoryChecker.check(List.of(stalledLongAfter, refusedLongAfter, answeredLongAfter,
                stalledBeforeTheFault, stalledByAnotherFault, lostItself, reuseStalledLater, stalledOnlyAfterItsAnswer), Map.of(),
                Map.of(),
                Map.of(Rule.LOST_WITHOUT_ROW, Set.of(KILL)), WITH_A_NODE_PAUSE);

        assertThat(verdict.inWindow(Rule.LOST_WITHOUT_ROW)).isEqualTo(2);
        assertThat(verdict.inWindowExamples()).singleElement().asString().contains("k1", "k2", ", after [" + KILL)
                .doesNotContain("k3", "k4", "k5", "k6", "k7");
        assertThat(verdict.violations()).singleElement().asString().startsWith("LOST_WITHOUT_ROW")
                .contains("k3", "k4", "k5", "k6", "k7").doesNotContain("k1", "k2");
        assertThat(verdict.report()).contains("LOST_WITHOUT_ROW 5 and 2 in its documented window (after " + KILL
                + ", for a key the store stalled on or refused)");
    }

    @Test
    void aKeyLeftWithoutADefinitiveAnswerLingersAfterItsFaultOnlyWhereItStalledWithNoOtherFaultOn() {
        Operation stalledToTheEnd = op("k1", "o-1", null);
        for (int second = 40; second < 60; second += 3) {
            stalledToTheEnd.add(new Operation.Attempt(0, second * SECOND, (second + 3) * SECOND, Operation.Attempt.NO_ANSWER,
                    null, false, null));
        }
        Operation stalledOnlyByAnotherFault = op("k2", "o-2", null);
        stalledOnlyByAnotherFault.add(new Operation.Attempt(0, 70 * SECOND, 73 * SECOND, Operation.Attempt.NO_ANSWER, null,
                false, null));

        HistoryChecker.Verdict verdict = HistoryChecker.check(List.of(stalledToTheEnd, stalledOnlyByAnotherFault),
                Map.of("o-1", Set.of(), "o-2", Set.of()), Map.of(), Map.of(Rule.UNRESOLVED, Set.of(KILL)), WITH_A_NODE_PAUSE);

        assertThat(verdict.inWindowExamples()).singleElement().asString().contains("k1", ", after [" + KILL)
                .doesNotContain("k2");
        assertThat(verdict.violations()).singleElement().asString().startsWith("UNRESOLVED").contains("k2")
                .doesNotContain("k1");
    }

    @Test
    void aKeyInItsWindowIsPrintedWithItsTimelineItsFirstAndLastAttemptsOnly() {
        Operation retried = op("k1", "o-1", null);
        retried.add(new Operation.Attempt(0, 9 * SECOND, 11 * SECOND, Operation.Attempt.NO_ANSWER, null, false, null));
        for (int second = 20; second < 40; second++) {
            retried.add(answer(second, 410, false, null));
        }

        HistoryChecker.Verdict verdict = HistoryChecker.check(List.of(retried), Map.of(),
                Map.of(Rule.LOST_WITHOUT_ROW, Set.of(KILL)), FAULTS);

        assertThat(verdict.violations()).isEmpty();
        assertThat(verdict.inWindowExamples()).singleElement().asString()
                .startsWith("LOST_WITHOUT_ROW in its documented window: 1 keys, e.g. [k1 (order o-1): no row; attempts"
                        + " [node 0 0.0s..2.0s: no answer] [node 0 10.5s..11.0s: 410 response-lost]")
                .contains("[node 0 11.5s..12.0s: 410 response-lost] [15 more] [node 0 27.5s..28.0s: 410 response-lost]")
                .endsWith("[node 0 29.5s..30.0s: 410 response-lost], faults near them [" + KILL + " 1.0s..3.0s]]");
    }

    @Test
    void aReuseLeftOpenIsInTheWindowWhenTheKeysFirstBodyMetTheFault() {
        Operation first = op("k1", "o-1", null);
        first.add(new Operation.Attempt(0, 9 * SECOND, 11 * SECOND, Operation.Attempt.NO_ANSWER, null, false, null));
        first.add(answer(12, 201, false, "{\"id\":\"p1\"}"));
        Operation reuse = op("k1", "o-1-other-1", "o-1");
        reuse.add(new Operation.Attempt(0, 40 * SECOND, 43 * SECOND, Operation.Attempt.NO_ANSWER, null, false, null));
        Operation otherKey = op("k2", "o-2-other-1", "o-2");
        otherKey.add(new Operation.Attempt(0, 40 * SECOND, 43 * SECOND, Operation.Attempt.NO_ANSWER, null, false, null));

        HistoryChecker.Verdict verdict = HistoryChecker.check(List.of(first, reuse, otherKey), Map.of("o-1", Set.of("p1")),
                Map.of(Rule.UNRESOLVED, Set.of(KILL)), FAULTS);

        assertThat(verdict.inWindow(Rule.UNRESOLVED)).isEqualTo(1);
        assertThat(verdict.violations()).singleElement().asString().startsWith("UNRESOLVED").contains("k2");
    }

    @Test
    void aRefusalOfAnotherProblemTypeIsOutsideTheContract() {
        Operation conflict = op("k1", "o-1", null);
        conflict.add(new Operation.Attempt(0, SECOND, SECOND + 1, 409, "some-other-conflict", false, null));
        Operation unavailable = op("k2", "o-2", null);
        unavailable.add(new Operation.Attempt(0, SECOND, SECOND + 1, 503, "(not the library's)", false, null));
        unavailable.add(new Operation.Attempt(0, 2 * SECOND, 2 * SECOND + 1, 503, "store-unavailable", false, null));
        unavailable.add(new Operation.Attempt(0, 3 * SECOND, 3 * SECOND + 1, 422, "key-reused", false, null));

        HistoryChecker.Verdict verdict = HistoryChecker.check(List.of(conflict, unavailable), Map.of(), Map.of(), FAULTS);

        assertThat(verdict.violations()).hasSize(3).anySatisfy(v -> assertThat(v).startsWith("UNEXPECTED_ANSWER").contains("k1"))
                .anySatisfy(v -> assertThat(v).startsWith("SERVER_ERROR").contains("k2").contains("1 keys"))
                .anySatisfy(v -> assertThat(v).startsWith("UNRESOLVED").contains("k1"));
    }

    @Test
    void aWindowForAnotherKindOfFaultAdmitsNothing() {
        Operation op = op("k1", "o-1", null);
        op.add(answer(11, 410, false, null));

        HistoryChecker.Verdict verdict = HistoryChecker.check(List.of(op), Map.of(),
                Map.of(Rule.LOST_WITHOUT_ROW, Set.of("kill -9 node")), FAULTS);

        assertThat(verdict.violations()).singleElement().asString().startsWith("LOST_WITHOUT_ROW");
    }

    @Test
    void aReusedKeyThatRanItsOtherBodyAnAnswerOutsideTheContractAndAnOpenKeyAreBroken() {
        Operation reused = op("k1", "o-1-other-1", "o-1");
        reused.add(answer(1, 201, false, "{\"id\":\"p9\"}"));
        Operation notFound = op("k2", "o-2", null);
        notFound.add(new Operation.Attempt(0, SECOND, SECOND + 1, 404, null, false, null));
        Operation open = op("k3", "o-3", null);
        open.add(new Operation.Attempt(0, SECOND, SECOND + 1, Operation.Attempt.NO_ANSWER, null, false, null));

        HistoryChecker.Verdict verdict = HistoryChecker.check(List.of(reused, notFound, open),
                Map.of("o-1-other-1", Set.of("p9")), Map.of(), FAULTS);

        assertThat(verdict.violations()).hasSize(3).anySatisfy(v -> assertThat(v).startsWith("REUSED_BODY_RAN"))
                .anySatisfy(v -> assertThat(v).startsWith("UNEXPECTED_ANSWER"))
                .anySatisfy(v -> assertThat(v).startsWith("UNRESOLVED"));
    }

    @Test
    void aSuccessNamingNoCommittedPaymentIsBroken() {
        Operation op = op("k1", "o-1", null);
        op.add(answer(1, 201, false, "{\"id\":\"p1\"}"));

        HistoryChecker.Verdict verdict = HistoryChecker.check(List.of(op), Map.of(), Map.of(), FAULTS);

        assertThat(verdict.violations()).singleElement().asString().startsWith("SUCCESS_WITHOUT_ROW");
    }

    private static Operation op(String key, String orderId, String reusedFrom) {
        return new Operation(0, key, orderId, "{\"orderId\":\"" + orderId + "\"}", reusedFrom);
    }

    /** An answer that came at the given second, after half a second on the way. */
    private static Operation.Attempt answer(long atSecond, int status, boolean replayed, String body) {
        String problem = status == 410 ? "response-lost" : null;
        return new Operation.Attempt(0, atSecond * SECOND - SECOND / 2, atSecond * SECOND, status, problem, replayed,
                body == null ? null : body.getBytes(StandardCharsets.UTF_8));
    }
}
