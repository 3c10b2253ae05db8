package dev.idempotency.sample.imports;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The sample's activity counters stay as small as the messages in flight, however many were imported. */
class ImportActivityTest {

    @Test
    void aMessageSettledLeavesNoCounterBehind() {
        ImportActivity activity = new ImportActivity();
        for (int i = 0; i < 10_000; i++) {
            String id = "m-" + i;
            assertThat(activity.attempt(id)).isEqualTo(1);
            assertThat(activity.attempt(id)).as("a retry in this JVM").isEqualTo(2);
            activity.settled(id);
        }
        activity.attempt("still-pending");

        assertThat(activity.tracked()).isEqualTo(1);
        assertThat(activity.counters()).containsEntry("started", 20_001L);
    }
}
