package dev.idempotency.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Draws the main comparisons of a benchmark report as two SVG charts: {@code store-ratios.svg},
 * each store against the raw operations it needs and against the peer (Camel), at 1 and 8
 * threads; {@code http-ratios.svg}, each store's HTTP first executions and replays against the
 * unannotated method and the floor. It reads the Markdown tables that {@link StoreBenchmarks} and
 * the HTTP benchmark write (the same tables as BENCHMARKS.md), so a chart never shows a figure the
 * tables do not. {@code benchmarks/run} calls it last.
 *
 * <p>Usage: {@code BenchmarkCharts <report.md> <output directory>}.
 */
public final class BenchmarkCharts {

    private static final Pattern HEADING = Pattern.compile("^#+\\s+(.*)$");
    private static final Pattern THREADS = Pattern.compile("^(.*?),\\s*(\\d+ threads?)$");
    private static final Pattern TARGET = Pattern.compile("≥\\s*([0-9]+(?:\\.[0-9]+)?)");

    private BenchmarkCharts() {
    }

    public static void main(String[] args) throws IOException {
        if (args.length != 2) {
            throw new IllegalArgumentException("usage: BenchmarkCharts <report.md> <output directory>");
        }
        List<String> lines = Files.readAllLines(Path.of(args[0]));
        Path out = Files.createDirectories(Path.of(args[1]));
        for (Map.Entry<String, RatioChart> chart : charts(lines).entrySet()) {
            Path file = out.resolve(chart.getKey());
            Files.writeString(file, chart.getValue().svg());
            System.out.println("chart: " + file);
        }
    }

    /**
     * @param report the lines of a benchmark report
     * @return the charts the report has tables for, by file name
     */
    static Map<String, RatioChart> charts(List<String> report) {
        Map<String, Map<String, List<RatioChart.Bar>>> stores = new LinkedHashMap<>();
        Map<String, List<RatioChart.Bar>> http = new LinkedHashMap<>();
        String heading = "";
        List<String> header = null;
        for (String line : report) {
            Matcher title = HEADING.matcher(line.trim());
            if (title.matches()) {
                heading = title.group(1).trim();
                header = null;
                continue;
            }
            if (!line.trim().startsWith("|")) {
                header = null;
                continue;
            }
            List<String> cells = cells(line);
            if (header == null) {
                header = cells;
                continue;
            }
            if (cells.stream().allMatch(cell -> cell.matches(":?-+:?"))) {
                continue;
            }
            if (header.contains("ours (ops/s)")) {
                storeRow(stores, heading, header, cells);
            } else if (header.contains("endpoint") && header.contains("req/s")) {
                httpRow(http, heading, header, cells);
            }
        }
        Map<String, RatioChart> charts = new LinkedHashMap<>();
        if (!stores.isEmpty()) {
            List<RatioChart.Group> groups = new ArrayList<>();
            stores.forEach((store, comparisons) -> groups.add(new RatioChart.Group(store,
                    comparisons.values().stream().flatMap(List::stream).toList())));
            charts.put("store-ratios.svg", new RatioChart("Store level: ours against the raw operations and the peer",
                    "JMH, operations per second: ours / the baseline, measured in the same run", groups));
        }
        if (!http.isEmpty()) {
            List<RatioChart.Group> groups = new ArrayList<>();
            http.forEach((store, bars) -> groups.add(new RatioChart.Group(store, bars)));
            charts.put("http-ratios.svg", new RatioChart("HTTP level: the sample app on Payara Micro under wrk",
                    "requests per second: ours / the unannotated method (or the floor: it also makes the store's round trips)",
                    groups));
        }
        return charts;
    }

    /** A row of a store table: "claim + complete vs raw, 8 threads", under its store. */
    private static void storeRow(Map<String, Map<String, List<RatioChart.Bar>>> stores, String heading,
            List<String> header, List<String> cells) {
        Matcher threads = THREADS.matcher(heading);
        String store = threads.matches() ? threads.group(1) : heading;
        // short enough for the chart's label column: "claim + complete, datasource vs pooled raw"
        String operation = cells.get(0).replaceAll("\\s*\\(.*\\)", "").replaceAll(",?\\s+vs\\s.*$", "")
                .replace("statements on the datasource", "datasource").replace("one query on the datasource", "datasource");
        String baseline = cell(header, cells, "baseline").replace("`", "");
        String versus = baseline.toLowerCase().startsWith("camel") ? "Camel"
                : baseline.startsWith("rawPooled") ? "pooled raw" : "raw";
        String comparison = operation + " vs " + versus;
        Double ratio = number(cell(header, cells, "ratio"));
        if (ratio == null) {
            return;
        }
        String label = comparison + (threads.matches() ? ", " + threads.group(2) : "");
        stores.computeIfAbsent(store, s -> new LinkedHashMap<>()).computeIfAbsent(comparison, c -> new ArrayList<>())
                .add(bar(label, ratio, cell(header, cells, "target")));
    }

    /** The first executions' and replays' rows of an HTTP table, under the store's short name. */
    private static void httpRow(Map<String, List<RatioChart.Bar>> http, String heading, List<String> header,
            List<String> cells) {
        String store = heading.replaceAll("\\s*\\(.*\\)", "");
        String endpoint = cells.get(0);
        Double ratio = number(cell(header, cells, "ratio"));
        Double toFloor = number(cell(header, cells, "ratio to the floor"));
        String target = cell(header, cells, "target");
        boolean targetOnFloor = target.contains("floor");
        List<RatioChart.Bar> bars = http.computeIfAbsent(store, s -> new ArrayList<>());
        if (endpoint.startsWith("no-op, first executions")) {
            if (ratio != null) {
                bars.add(bar("first executions vs unannotated", ratio, targetOnFloor ? "" : target));
            }
            if (toFloor != null) {
                bars.add(bar("first executions vs the floor", toFloor, targetOnFloor ? target : ""));
            }
        } else if (endpoint.startsWith("no-op, replays") && ratio != null) {
            bars.add(bar("replays vs unannotated", ratio, target));
        } else if (endpoint.startsWith("JSON-bound method, replays") && ratio != null) {
            bars.add(bar("JSON-bound replays vs unannotated", ratio, target));
        }
    }

    private static List<String> cells(String line) {
        String inside = line.trim().replaceAll("^\\|", "").replaceAll("\\|$", "");
        List<String> cells = new ArrayList<>();
        for (String cell : inside.split("\\|", -1)) {
            cells.add(cell.trim());
        }
        return cells;
    }

    private static String cell(List<String> header, List<String> cells, String column) {
        int index = header.indexOf(column);
        return index >= 0 && index < cells.size() ? cells.get(index) : "";
    }

    private static Double number(String cell) {
        try {
            return cell.isEmpty() ? null : Double.valueOf(cell.replace(",", ""));
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /** A bar with the target of a table's target cell ("NOT met, ≥ 0.95 of the floor"), if it has one. */
    private static RatioChart.Bar bar(String label, double ratio, String targetCell) {
        Matcher target = TARGET.matcher(targetCell);
        if (!target.find()) {
            return new RatioChart.Bar(label, ratio);
        }
        boolean met = targetCell.trim().startsWith("met");
        return new RatioChart.Bar(label, ratio, Double.valueOf(target.group(1)), met);
    }
}
