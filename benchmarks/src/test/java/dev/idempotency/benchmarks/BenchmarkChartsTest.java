package dev.idempotency.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

/** The charts show what the report's tables say: every ratio, its target and whether it is met. */
class BenchmarkChartsTest {

    private static final List<String> REPORT = List.of(
            "### Infinispan store, 1 thread",
            "",
            "| operation | ours (ops/s) | baseline | baseline (ops/s) | ratio | target |",
            "|---|---:|---|---:|---:|---:|",
            "| claim + complete (1 KiB answer) | 5,265 | `rawPutIfAbsentThenReplaceWithVersion` | 5,414 | 0.97 | met, ≥ 0.95 |",
            "| claim + complete vs Camel add + confirm | 5,265 | `camelAddThenConfirm` | 7,815 | 0.67 | NOT met, ≥ 1.0 |",
            "",
            "### Infinispan store, 8 threads",
            "",
            "| operation | ours (ops/s) | baseline | baseline (ops/s) | ratio | target |",
            "|---|---:|---|---:|---:|---:|",
            "| claim + complete (1 KiB answer) | 22,076 | `rawPutIfAbsentThenReplaceWithVersion` | 24,541 | 0.90 | NOT met, ≥ 0.90 |",
            "",
            "### First executions as the store fills up, 1 thread",
            "",
            "| store | live records | claim + complete (ops/s) | ratio to 1 live record |",
            "|---|---:|---:|---:|",
            "| jpa | 1 | 3,277 | 1.00 |",
            "",
            "#### JPA on PostgreSQL (a server of its own)",
            "",
            "| endpoint | req/s | p50 (ms) | p99 (ms) | ratio | ratio to the floor | target |",
            "|---|---:|---:|---:|---:|---:|---|",
            "| no-op, without `@Idempotent` (baseline) | 19,831 | 0.71 | 3.28 |  |  |  |",
            "| no-op, first executions (a fresh key each) | 3,594 | 4.28 | 12.05 | 0.18 | 0.57 | NOT met, ≥ 0.80 of the floor |",
            "| no-op, replays (one key) | 24,483 | 0.68 | 3.15 | 1.23 |  | met, ≥ 1.20 |",
            "",
            "#### in-memory",
            "",
            "| endpoint | req/s | p50 (ms) | p99 (ms) | ratio | ratio to the floor | target |",
            "|---|---:|---:|---:|---:|---:|---|",
            "| no-op, first executions (a fresh key each) | 15,278 | 0.88 | 30.97 | 0.73 |  | NOT met, ≥ 0.90 |");

    @Test
    void storeTablesBecomeOneGroupPerStoreEachComparisonAtBothThreadCounts() {
        RatioChart chart = BenchmarkCharts.charts(REPORT).get("store-ratios.svg");

        assertThat(chart.groups()).extracting(RatioChart.Group::name).containsExactly("Infinispan store");
        assertThat(chart.groups().get(0).bars()).containsExactly(
                new RatioChart.Bar("claim + complete vs raw, 1 thread", 0.97, 0.95, true),
                // 0.8996 rounds to 0.90 in the table, which says "NOT met": the chart says so too
                new RatioChart.Bar("claim + complete vs raw, 8 threads", 0.90, 0.90, false),
                new RatioChart.Bar("claim + complete vs Camel, 1 thread", 0.67, 1.0, false));
    }

    @Test
    void httpTablesGiveFirstExecutionsAgainstTheirBaselinesAndReplaysWithTheTargetWhereItApplies() {
        RatioChart chart = BenchmarkCharts.charts(REPORT).get("http-ratios.svg");

        assertThat(chart.groups()).extracting(RatioChart.Group::name).containsExactly("JPA on PostgreSQL", "in-memory");
        assertThat(chart.groups().get(0).bars()).containsExactly(
                new RatioChart.Bar("first executions vs unannotated", 0.18),
                new RatioChart.Bar("first executions vs the floor", 0.57, 0.80, false),
                new RatioChart.Bar("replays vs unannotated", 1.23, 1.20, true));
        assertThat(chart.groups().get(1).bars()).containsExactly(new RatioChart.Bar("first executions vs unannotated", 0.73, 0.90, false));
    }

    @Test
    void barsAreAsLongAsTheirRatiosAndColouredByTheirTarget() {
        Map<String, RatioChart> charts = BenchmarkCharts.charts(REPORT);
        RatioChart http = charts.get("http-ratios.svg");
        String svg = http.svg();

        // the axis reaches 1.4 (the largest ratio, 1.23, rounded up to 0.2, but never below 1.4)
        assertThat(http.axisEnd()).isEqualTo(1.4, org.assertj.core.data.Offset.offset(1e-9));
        assertThat(svg).startsWith("<svg xmlns=\"http://www.w3.org/2000/svg\"").endsWith("</svg>\n");
        // 0.57 of the 500-pixel plot's 1.4: 203.6 pixels, orange (not met); 1.23: 439.3, green (met)
        assertThat(svg).contains("width=\"203.6\" height=\"16\" fill=\"" + RatioChart.NOT_MET + "\"")
                .contains("width=\"439.3\" height=\"16\" fill=\"" + RatioChart.MET + "\"")
                .contains("width=\"64.3\" height=\"16\" fill=\"" + RatioChart.NO_TARGET + "\"")
                .contains("<title>target 0.80</title>");
        assertThat(svg).contains("first executions vs the floor");
    }

    @Test
    void aReportWithoutTablesDrawsNothing() {
        assertThat(BenchmarkCharts.charts(List.of("# nothing measured", "", "text"))).isEmpty();
    }
}
