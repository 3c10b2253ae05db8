package dev.idempotency.config;

import java.lang.reflect.Method;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Function;

import dev.idempotency.AnonymousCallers;
import dev.idempotency.IdempotencyScope;
import dev.idempotency.Idempotent;
import dev.idempotency.InProgressDuplicates;
import dev.idempotency.exceptions.IdempotencyDefinitionException;
import dev.idempotency.internal.Messages;
import dev.idempotency.spi.support.ConfigLookup;

/**
 * Resolves the {@link IdempotencyPolicy} of a method the MicroProfile Fault Tolerance way: the
 * first of {@code <fqcn>/<method>/Idempotent/<member>}, {@code <fqcn>/Idempotent/<member>},
 * {@code Idempotent/<member>} that is set wins, else the method's annotation, else the class's.
 * Validates every value and throws {@link IdempotencyDefinitionException} with a coded message.
 */
public final class PolicyResolver {

    /** The config key levels: {@code <fqcn>/<method>/Idempotent/}, {@code <fqcn>/Idempotent/}, {@code Idempotent/}. */
    private static final int METHOD_LEVEL = 0;
    private static final int CLASS_LEVEL = 1;
    private static final int LEVELS = 3;

    /**
     * The longest ttl or lease: far beyond any use, and well inside what every store's clock
     * arithmetic holds (nanoseconds in a {@code long} run out after 292 years).
     */
    static final Duration LONGEST = Duration.ofDays(36_500);

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
        HttpMembers.Resolved http = HttpMembers.resolve(members, annotation, beanClass, method);
        InProgressDuplicates inProgress = inProgress(members.where,
                members.value("inProgress", annotation.inProgress().name()));
        return new IdempotencyPolicy(
                identity(beanClass, method, members),
                ttlValue,
                leaseValue,
                bool(members.where, members.value("required", String.valueOf(annotation.required()))),
                scope(members.where, members.value("scope", annotation.scope().name())),
                bool(members.where, members.value("pinServerErrors", String.valueOf(annotation.pinServerErrors()))),
                bool(members.where, members.value("failOpen", String.valueOf(annotation.failOpen()))),
                bool(members.where, members.value("fingerprintArguments",
                        String.valueOf(annotation.fingerprintArguments()))),
                bool(members.where, members.value("serverIssuedKeys", String.valueOf(annotation.serverIssuedKeys()))),
                bool(members.where, members.value("sharedName", String.valueOf(annotation.sharedName()))),
                anonymous(members.where, members.value("anonymous", annotation.anonymous().name())),
                http.keySource(),
                http.fingerprint(),
                inProgress,
                maxWait(members, annotation, inProgress, lease, leaseValue));
    }

    /**
     * With {@code WAIT}: the configured or annotated {@code maxWait}, at most the lease; unset, the
     * default or the lease when shorter. With {@code CONFLICT}: zero; a value that is set is still
     * checked, so that a mistake shows before someone switches to {@code WAIT}.
     */
    private static Duration maxWait(Members members, Idempotent annotation, InProgressDuplicates inProgress,
            Setting lease, Duration leaseValue) {
        Setting maxWait = members.value("maxWait", annotation.maxWait());
        Duration value;
        if (maxWait.value.isEmpty()) {
            value = leaseValue.compareTo(IdempotencyPolicy.DEFAULT_MAX_WAIT) < 0 ? leaseValue
                    : IdempotencyPolicy.DEFAULT_MAX_WAIT;
        } else {
            value = duration(members.where, maxWait);
            if (value.compareTo(leaseValue) > 0) {
                throw new IdempotencyDefinitionException(Messages.maxWaitLongerThanLease(
                        members.where, maxWait.key, maxWait.value, lease.key, lease.value));
            }
        }
        return inProgress == InProgressDuplicates.WAIT ? value : Duration.ZERO;
    }

    private static InProgressDuplicates inProgress(String where, Setting setting) {
        return choice(where, setting, InProgressDuplicates.values(), Messages::unknownInProgress);
    }

    /**
     * The endpoint's identity: a name on the method (or {@code <fqcn>/<method>/Idempotent/name}) is
     * the whole of it; a name on the class (or {@code <fqcn>/Idempotent/name},
     * {@code Idempotent/name}) stands for the class's name in the derived identity.
     */
    private static String identity(Class<?> beanClass, Method method, Members members) {
        Idempotent onMethod = method.getAnnotation(Idempotent.class);
        Setting whole = members.value("name", onMethod == null ? "" : onMethod.name(), METHOD_LEVEL, CLASS_LEVEL);
        if (!whole.value.isEmpty()) {
            return name(members.where, whole);
        }
        Idempotent onClass = beanClass.getAnnotation(Idempotent.class);
        Setting classPart = members.value("name", onClass == null ? "" : onClass.name(), CLASS_LEVEL, LEVELS);
        return EndpointIdentity.derived(classPart.value.isEmpty() ? beanClass.getName() : name(members.where, classPart),
                method);
    }

    private static String name(String where, Setting setting) {
        if (!EndpointIdentity.isValidName(setting.value)) {
            throw new IdempotencyDefinitionException(Messages.invalidName(where, setting.key, setting.value,
                    EndpointIdentity.MAX_NAME_LENGTH));
        }
        return setting.value;
    }

    /** A value and where it came from, for messages. */
    record Setting(String key, String value) {
        /** @return whether the value was configured rather than annotated */
        boolean configured() {
            return !key.startsWith("@");
        }
    }

    /** Looks up one method's members. */
    final class Members {
        private final String fqcn;
        private final String methodName;
        final String where;

        Members(Class<?> beanClass, Method method) {
            this.fqcn = beanClass.getName();
            this.methodName = method.getName();
            this.where = Messages.where(beanClass, method);
        }

        Setting value(String member, String annotated) {
            return value(member, annotated, METHOD_LEVEL, LEVELS);
        }

        /** Looks at the keys of levels {@code from} (inclusive) to {@code to} (exclusive) only. */
        Setting value(String member, String annotated, int from, int to) {
            String[] keys = {
                fqcn + "/" + methodName + "/Idempotent/" + member,
                fqcn + "/Idempotent/" + member,
                "Idempotent/" + member};
            for (int level = from; level < to; level++) {
                String key = keys[level];
                Optional<String> configured = config.get(key);
                if (configured.isPresent()) {
                    return new Setting(key, configured.get().trim());
                }
            }
            return new Setting("@Idempotent(" + member + ")", annotated);
        }

        /** @return the member's config key on the method level, if it is set */
        Optional<Setting> onMethodLevel(String member) {
            String key = fqcn + "/" + methodName + "/Idempotent/" + member;
            return config.get(key).map(value -> new Setting(key, value.trim()));
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
        if (value.isNegative() || value.isZero() || value.compareTo(LONGEST) > 0) {
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
        return choice(where, setting, IdempotencyScope.values(), Messages::unknownScope);
    }

    private static AnonymousCallers anonymous(String where, Setting setting) {
        return choice(where, setting, AnonymousCallers.values(), Messages::unknownAnonymousCallers);
    }

    /** A coded message for a value that is none of the allowed choices. */
    interface ChoiceMessage {
        String message(String where, String key, String value, String allowed);
    }

    /**
     * @return the constant whose name is the setting's value, case-insensitive
     * @throws IdempotencyDefinitionException with the message, listing the allowed constants
     */
    static <E extends Enum<E>> E choice(String where, Setting setting, E[] values, ChoiceMessage error) {
        for (E value : values) {
            if (value.name().equalsIgnoreCase(setting.value)) {
                return value;
            }
        }
        throw new IdempotencyDefinitionException(error.message(where, setting.key, setting.value,
                Arrays.toString(values)));
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
