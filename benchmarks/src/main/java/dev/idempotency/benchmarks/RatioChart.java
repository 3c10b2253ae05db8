package dev.idempotency.benchmarks;

import java.util.List;
import java.util.Locale;

/**
 * A horizontal bar chart of ratios (ours / a baseline measured in the same run), drawn as SVG
 * without any library: one bar per comparison, grouped, a line at 1.0 (as fast as the baseline)
 * and a tick at each bar's target. A bar is green when it meets its target, orange when it does
 * not, grey when it has none.
 *
 * @param title the chart's title
 * @param subtitle what the ratios are to
 * @param groups the groups of bars, top to bottom
 */
public record RatioChart(String title, String subtitle, List<Group> groups) {

    /**
     * @param name the group's heading (a store)
     * @param bars its bars, top to bottom
     */
    public record Group(String name, List<Bar> bars) {
    }

    /**
     * @param label what is compared
     * @param ratio ours / the baseline, as the table rounds it
     * @param target what the ratio must reach, or null for none
     * @param met whether it does, as the table says (decided on the unrounded ratio): a ratio of
     *     0.8996 shows as 0.90 and does not meet 0.9
     */
    public record Bar(String label, double ratio, Double target, boolean met) {

        /** A bar without a target. */
        public Bar(String label, double ratio) {
            this(label, ratio, null, false);
        }
    }

    static final String MET = "#2e7d32";
    static final String NOT_MET = "#e65100";
    static final String NO_TARGET = "#78909c";

    private static final int WIDTH = 960;
    private static final int LABELS = 360;
    private static final int PLOT = 500;
    private static final int BAR = 16;
    private static final int ROW = 22;
    private static final int HEADING = 28;
    private static final int TOP = 78;

    /** @return the largest ratio the axis shows: at least 1.4, the largest bar or target rounded up to 0.2 */
    double axisEnd() {
        double largest = 1.4;
        for (Group group : groups) {
            for (Bar bar : group.bars()) {
                largest = Math.max(largest, bar.ratio());
                if (bar.target() != null) {
                    largest = Math.max(largest, bar.target());
                }
            }
        }
        return Math.ceil(largest / 0.2 - 1e-9) * 0.2;
    }

    /** @return the x of a ratio on the plot */
    double x(double ratio) {
        return LABELS + PLOT * Math.max(0, ratio) / axisEnd();
    }

    /** @return the chart as a standalone SVG document */
    public String svg() {
        int rows = groups.stream().mapToInt(group -> group.bars().size()).sum();
        int height = TOP + groups.size() * HEADING + rows * ROW + 30;
        double end = axisEnd();
        StringBuilder svg = new StringBuilder();
        svg.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\""
                + " viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"13\">%n", WIDTH, height, WIDTH, height));
        svg.append(String.format(Locale.ROOT, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>%n", WIDTH, height));
        svg.append(text(10, 22, "font-size=\"17\" font-weight=\"bold\"", title));
        svg.append(text(10, 42, "fill=\"#555\"", subtitle));
        svg.append(legend(10, 62));
        int axisBottom = height - 30;
        for (int step = 0; step * 0.2 <= end + 1e-9; step++) {
            double ratio = step * 0.2;
            boolean one = Math.abs(ratio - 1) < 1e-9;
            svg.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"%s\" stroke-width=\"%s\"/>%n",
                    x(ratio), TOP - 6, x(ratio), axisBottom, one ? "#333" : "#ddd", one ? "1.5" : "1"));
            svg.append(text(x(ratio) - 10, axisBottom + 16, "fill=\"#555\"", String.format(Locale.ROOT, "%.1f", ratio)));
        }
        int y = TOP;
        for (Group group : groups) {
            svg.append(text(10, y + 18, "font-weight=\"bold\"", group.name()));
            y += HEADING;
            for (Bar bar : group.bars()) {
                String colour = bar.target() == null ? NO_TARGET : bar.met() ? MET : NOT_MET;
                svg.append(text(22, y + 13, "", bar.label()));
                svg.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"/>%n",
                        LABELS, y, x(bar.ratio()) - LABELS, BAR, colour));
                // the figure right of the bar, and of its target's tick when that is further
                double figureAt = Math.max(x(bar.ratio()), bar.target() == null ? 0 : x(bar.target())) + 6;
                svg.append(text(figureAt, y + 13, "", String.format(Locale.ROOT, "%.2f", bar.ratio())));
                if (bar.target() != null) {
                    svg.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"black\""
                            + " stroke-width=\"3\"><title>target %.2f</title></line>%n", x(bar.target()), y - 3,
                            x(bar.target()), y + BAR + 3, bar.target()));
                }
                y += ROW;
            }
        }
        return svg.append("</svg>\n").toString();
    }

    private static String legend(int x, int y) {
        StringBuilder legend = new StringBuilder();
        String[][] keys = {{MET, "target met"}, {NOT_MET, "target not met"}, {NO_TARGET, "no target"}};
        int at = x;
        for (String[] key : keys) {
            legend.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/>%n", at, y - 10, key[0]));
            legend.append(text(at + 16, y, "", key[1]));
            at += 130;
        }
        legend.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\" stroke-width=\"3\"/>%n",
                at + 5, y - 12, at + 5, y + 2));
        legend.append(text(at + 12, y, "", "the target"));
        legend.append(text(at + 112, y, "", "1.0 = as fast as the baseline"));
        return legend.toString();
    }

    private static String text(double x, double y, String attributes, String content) {
        return String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%.1f\"%s>%s</text>%n", x, y,
                attributes.isEmpty() ? "" : " " + attributes, escape(content));
    }

    private static String escape(String content) {
        return content.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
