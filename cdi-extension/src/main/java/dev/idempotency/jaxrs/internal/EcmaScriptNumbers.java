package dev.idempotency.jaxrs.internal;

import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;

/**
 * Writes a double as ECMAScript's {@code Number.prototype.toString} does (ECMA-262, Number::toString),
 * which RFC 8785 makes the canonical form of a JSON number: the shortest decimal that reads back
 * as the same double, the closest of those when there are two, in plain notation from 1e-6 to
 * 1e21 and in exponent notation ({@code 1e+21}, {@code 5e-324}) outside. Java 17's
 * {@code Double.toString} is not always the shortest (JDK-4511638), so the digits are searched
 * here, starting from its answer.
 */
final class EcmaScriptNumbers {

    /** Below 2^53 every integral double is an integer whose digits are its shortest form. */
    private static final double EXACT_INTEGERS = 0x1p53;

    private EcmaScriptNumbers() {
    }

    /**
     * @param value a finite double
     * @return its ECMAScript form; {@code -0} is {@code 0}
     * @throws IllegalArgumentException for NaN and the infinities, which JSON has no form for
     */
    static String toString(double value) {
        if (Double.isNaN(value) || Double.isInfinite(value)) {
            throw new IllegalArgumentException("not a JSON number: " + value);
        }
        if (value == 0) {
            return "0";
        }
        if (value < 0) {
            return "-" + toString(-value);
        }
        if (value < EXACT_INTEGERS && value == Math.rint(value)) {
            return Long.toString((long) value);
        }
        BigDecimal shortest = shortest(value);
        String digits = shortest.unscaledValue().toString();
        // value = 0.digits * 10^n, as ECMA-262 names them: k digits, exponent n
        return format(digits, digits.length() - shortest.scale());
    }

    /**
     * The shortest decimal that reads back as {@code value}. Its length is at most that of
     * {@code Double.toString}'s digits, and if a decimal of {@code p} digits reads back, one of
     * {@code p + 1} does too: so the search walks down from there until a length has none.
     */
    private static BigDecimal shortest(double value) {
        BigDecimal exact = new BigDecimal(value);
        int precision = new BigDecimal(Double.toString(value)).stripTrailingZeros().precision();
        BigDecimal best = closestOfLength(exact, value, precision);
        for (int shorter = precision - 1; shorter >= 1; shorter--) {
            BigDecimal candidate = closestOfLength(exact, value, shorter);
            if (candidate == null) {
                break;
            }
            best = candidate;
        }
        return best.stripTrailingZeros();
    }

    /**
     * @return of the two decimals of {@code precision} significant digits around {@code exact},
     *     the one that reads back as {@code value} (the closer if both do, the even one on a tie),
     *     or {@code null} when neither does
     */
    private static BigDecimal closestOfLength(BigDecimal exact, double value, int precision) {
        BigDecimal down = exact.round(new MathContext(precision, RoundingMode.FLOOR));
        BigDecimal up = exact.round(new MathContext(precision, RoundingMode.CEILING));
        boolean downReadsBack = Double.parseDouble(down.toString()) == value;
        boolean upReadsBack = Double.parseDouble(up.toString()) == value;
        if (downReadsBack && upReadsBack && down.compareTo(up) != 0) {
            int closer = exact.subtract(down).compareTo(up.subtract(exact));
            if (closer != 0) {
                return closer < 0 ? down : up;
            }
            return down.unscaledValue().testBit(0) ? up : down;
        }
        return downReadsBack ? down : upReadsBack ? up : null;
    }

    /** ECMA-262 Number::toString, steps 6 to 10, for k = digits.length() and exponent n. */
    private static String format(String digits, int n) {
        int k = digits.length();
        if (k <= n && n <= 21) {
            return digits + "0".repeat(n - k);
        }
        if (0 < n && n <= 21) {
            return digits.substring(0, n) + "." + digits.substring(n);
        }
        if (-6 < n && n <= 0) {
            return "0." + "0".repeat(-n) + digits;
        }
        int exponent = n - 1;
        String e = "e" + (exponent < 0 ? "-" : "+") + Math.abs(exponent);
        return k == 1 ? digits + e : digits.charAt(0) + "." + digits.substring(1) + e;
    }
}
