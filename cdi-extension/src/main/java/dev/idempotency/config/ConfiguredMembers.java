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
 * {@code <fqcn>/Idempotent/<member>}, {@code Idempotent/<member>}) checked once, at deployment,
 * against the annotation's members: a key naming none (a typo, a member's name in another case)
 * would be ignored, and its method run on values its operator did not mean.
 *
 * <p>Only the member is checked, not the class or method a key names: resources that are not CDI
 * beans are found after deployment, and a config source of the server may hold keys of another
 * application.
 */
public final class ConfiguredMembers {

    private static final Pattern MEMBER_KEY = Pattern.compile("(?:^|/)Idempotent/([^/]*)$");

    /** The members of {@code @Idempotent}, sorted. */
    private static final Set<String> MEMBERS = new TreeSet<>(Arrays.stream(Idempotent.class.getDeclaredMethods())
            .map(Method::getName).toList());

    private ConfiguredMembers() {
    }

    /**
     * @param propertyNames every config property name the application sees
     * @param values the configured value of a name
     * @return a coded message ({@code IDEMP0156}) per key naming no member of {@code @Idempotent}
     */
    public static List<String> unknown(Iterable<String> propertyNames, Function<String, String> values) {
        List<String> errors = new ArrayList<>();
        for (String name : propertyNames) {
            Matcher matcher = MEMBER_KEY.matcher(name);
            if (matcher.find() && !MEMBERS.contains(matcher.group(1))) {
                errors.add(Messages.unknownConfiguredMember(name, values.apply(name), MEMBERS));
            }
        }
        return errors;
    }
}
