package dev.idempotency.config;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.idempotency.Idempotent;
import dev.idempotency.internal.Messages;

/**
 * The config keys in {@code @Idempotent}'s namespace ({@code <fqcn>/<method>/Idempotent/<member>},
 * {@code <fqcn>/Idempotent/<member>}, {@code Idempotent/<member>}, each also under a
 * {@code %profile.} prefix) checked once, at deployment, against the annotation's members: a key
 * naming none (a typo, a member's name in another case) would be ignored, and its method run on
 * values its operator did not mean.
 *
 * <p>A key naming a class of this application with {@code @Idempotent} methods fails the
 * deployment. Any other (the application-wide {@code Idempotent/<member>}, a class that is not a
 * bean of it) is warned about only: a server-wide config source may hold another application's
 * keys, written for a newer version of this library with members this one does not know.
 */
public final class ConfiguredMembers {

    /** An optional profile, then the class (and method) part, then the member. */
    private static final Pattern MEMBER_KEY = Pattern.compile("^(?:%[^.]+\\.)?(?:(.+?)/(?:[^/]+/)?)?Idempotent/([^/]*)$");

    /** The members of {@code @Idempotent}, sorted. */
    private static final Set<String> MEMBERS = new TreeSet<>(Arrays.stream(Idempotent.class.getDeclaredMethods())
            .map(Method::getName).toList());

    /**
     * A key naming no member.
     *
     * @param key the config key
     * @param value its value, as configured
     * @param className the class it names, or null for an application-wide key
     */
    public record Unknown(String key, String value, String className) {
        /** @return the coded message ({@code IDEMP0156}) */
        public String message() {
            return Messages.unknownConfiguredMember(key, value, MEMBERS);
        }
    }

    private ConfiguredMembers() {
    }

    /**
     * @param propertyNames every config property name the application sees
     * @param values the configured value of a name, as written (never failing on an expression)
     * @return the keys in {@code @Idempotent}'s namespace naming no member of it
     */
    public static List<Unknown> unknown(Iterable<String> propertyNames, Function<String, String> values) {
        List<Unknown> unknown = new ArrayList<>();
        for (String name : propertyNames) {
            Matcher matcher = MEMBER_KEY.matcher(name);
            if (matcher.matches() && !MEMBERS.contains(matcher.group(2))) {
                unknown.add(new Unknown(name, values.apply(name), matcher.group(1)));
            }
        }
        return unknown;
    }
}
