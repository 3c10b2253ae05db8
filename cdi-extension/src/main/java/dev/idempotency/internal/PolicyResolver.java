package dev.idempotency.internal;

import java.lang.reflect.Method;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Function;

import dev.idempotency.IdempotencyDefinitionException;
import dev.idempotency.IdempotencyScope;
import dev.idempotency.Idempotent;

/**
 * Resolves the {@link IdempotencyPolicy} of a method the MicroProfile Fault Tolerance way: the
 * first of {@code <fqcn>/<method>/Idempotent/<member>}, {@code <fqcn>/Idempotent/<member>},
 * {@code Idempotent/<member>} that is set wins, else the method's annotation, else the class's.
 * Validates every value and throws {@link IdempotencyDefinitionException} with a coded message.
 */
public final class PolicyResolver {

    private final ConfigLookup config;

    /**
     * @param config where overrides are read
     */
    public PolicyResolver(ConfigLookup config) {
        this.config = config;
    }

    /**
     * @param beanClass the bean or resource class
     * @param method one of its methods
     * @return the annotation that applies to the method (its own, else its class's)
     */
    public static Optional<Idempotent> annotationOf(Class<?> beanClass, Method method) {
        Idempotent onMethod = method.getAnnotation(Idempotent.class);
        return Optional.ofNullable(onMethod != null ? onMethod : beanClass.getAnnotation(Idempotent.class));
    }

    /**
     * @param beanClass the bean or resource class
     * @param method an annotated method of it
     * @return the validated policy
     * @throws IdempotencyDefinitionException naming the bean, method, key, value and what is allowed
     */
    public IdempotencyPolicy resolve(Class<?> beanClass, Method method) {
        Idempotent annotation = annotationOf(beanClass, method).orElseThrow(
                () -> new IllegalArgumentException(method + " is not @Idempotent"));
        Members members = new Members(beanClass, method);

        Setting ttl = members.value("ttl", annotation.ttl());
        Setting lease = members.value("lease", annotation.lease());
        Duration ttlValue = duration(members.where, ttl);
        Duration leaseValue = duration(members.where, lease);
        if (ttlValue.compareTo(leaseValue) < 0) {
            throw new IdempotencyDefinitionException(Messages.ttlShorterThanLease(
                    members.where, ttl.key, ttl.value, lease.key, lease.value));
        }
        return new IdempotencyPolicy(
                beanClass.getName() + "#" + method.getName(),
                ttlValue,
                leaseValue,
                bool(members.where, members.value("required", String.valueOf(annotation.required()))),
                scope(members.where, members.value("scope", annotation.scope().name())),
                bool(members.where, members.value("pinServerErrors", String.valueOf(annotation.pinServerErrors()))),
                bool(members.where, members.value("failOpen", String.valueOf(annotation.failOpen()))),
                bool(members.where, members.value("fingerprintArguments",
                        String.valueOf(annotation.fingerprintArguments()))),
                bool(members.where, members.value("serverIssuedKeys", String.valueOf(annotation.serverIssuedKeys()))));
    }

    /** A value and where it came from, for messages. */
    private record Setting(String key, String value) {
    }

    /** Looks up one method's members. */
    private final class Members {
        private final String fqcn;
        private final String methodName;
        final String where;

        Members(Class<?> beanClass, Method method) {
            this.fqcn = beanClass.getName();
            this.methodName = method.getName();
            this.where = Messages.where(beanClass, method);
        }

        Setting value(String member, String annotated) {
            for (String key : new String[] {
                fqcn + "/" + methodName + "/Idempotent/" + member,
                fqcn + "/Idempotent/" + member,
                "Idempotent/" + member}) {
                Optional<String> configured = config.get(key);
                if (configured.isPresent()) {
                    return new Setting(key, configured.get().trim());
                }
            }
            return new Setting("@Idempotent(" + member + ")", annotated);
        }
    }

    private static Duration duration(String where, Setting setting) {
        Duration value = parse(setting, where, text -> {
            try {
                return Duration.parse(text);
            } catch (DateTimeParseException e) {
                return null;
            }
        }, Messages::invalidDuration);
        if (value.isNegative() || value.isZero()) {
            throw new IdempotencyDefinitionException(Messages.nonPositiveDuration(where, setting.key, setting.value));
        }
        return value;
    }

    private static boolean bool(String where, Setting setting) {
        return parse(setting, where, text -> switch (text.toLowerCase(Locale.ROOT)) {
            case "true" -> Boolean.TRUE;
            case "false" -> Boolean.FALSE;
            default -> null;
        }, Messages::invalidBoolean);
    }

    private static IdempotencyScope scope(String where, Setting setting) {
        return Arrays.stream(IdempotencyScope.values())
                .filter(s -> s.name().equalsIgnoreCase(setting.value))
                .findFirst()
                .orElseThrow(() -> new IdempotencyDefinitionException(Messages.unknownScope(
                        where, setting.key, setting.value, Arrays.toString(IdempotencyScope.values()))));
    }

    private interface MessageFactory {
        String message(String where, String key, String value);
    }

    private static <T> T parse(Setting setting, String where, Function<String, T> parser, MessageFactory error) {
        T value = parser.apply(setting.value);
        if (value == null) {
            throw new IdempotencyDefinitionException(error.message(where, setting.key, setting.value));
        }
        return value;
    }
}
