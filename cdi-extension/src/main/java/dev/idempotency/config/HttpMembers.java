package dev.idempotency.config;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

import dev.idempotency.IdempotencyFingerprint;
import dev.idempotency.Idempotent;
import dev.idempotency.config.PolicyResolver.Members;
import dev.idempotency.config.PolicyResolver.Setting;
import dev.idempotency.exceptions.IdempotencyDefinitionException;
import dev.idempotency.internal.Messages;

/**
 * The members that only HTTP requests have a use for: where the key comes from
 * ({@code keyHeader}, {@code keyFromBody}) and what the fingerprint covers ({@code fingerprint},
 * {@code fingerprintMembers}). Each is checked on every method; on a method that is no JAX-RS
 * resource method, one set on the method itself fails (it would do nothing), one set on its class
 * or for the application is left to the resource methods it is meant for.
 */
final class HttpMembers {

    private static final String KEY_HEADER = "keyHeader";
    private static final String KEY_FROM_BODY = "keyFromBody";
    private static final String FINGERPRINT = "fingerprint";
    private static final String FINGERPRINT_MEMBERS = "fingerprintMembers";
    private static final String FINGERPRINT_ARGUMENTS = "fingerprintArguments";

    /** RFC 9110: content in these requests has no generally defined semantics. */
    private static final Set<String> BODILESS = Set.of("GET", "HEAD", "DELETE", "OPTIONS");

    /** What an HTTP endpoint's policy holds of these members. */
    record Resolved(KeySource keySource, FingerprintRule fingerprint) {
        static final Resolved DEFAULT = new Resolved(KeySource.DEFAULT, FingerprintRule.DEFAULT);
    }

    private HttpMembers() {
    }

    static Resolved resolve(Members members, Idempotent annotation, Class<?> beanClass, Method method) {
        String where = members.where;
        Setting header = members.value(KEY_HEADER, annotation.keyHeader());
        if (!header.value().isEmpty() && !LibrarySettings.isHeaderName(header.value())) {
            throw new IdempotencyDefinitionException(Messages.invalidKeyHeader(where, header.key(), header.value()));
        }
        Setting keyPointer = members.value(KEY_FROM_BODY, annotation.keyFromBody());
        BodyPointer pointer = keyPointer.value().isEmpty() ? null : pointer(where, keyPointer.key(), keyPointer.value());
        if (pointer != null && !header.value().isEmpty()) {
            throw new IdempotencyDefinitionException(Messages.twoKeySources(where, header.key(), header.value(),
                    keyPointer.key(), keyPointer.value()));
        }
        Setting mode = members.value(FINGERPRINT, annotation.fingerprint().name());
        IdempotencyFingerprint fingerprint = PolicyResolver.choice(where, mode, IdempotencyFingerprint.values(),
                Messages::unknownFingerprint);
        Setting listed = members.value(FINGERPRINT_MEMBERS, String.join(",", annotation.fingerprintMembers()));
        List<BodyPointer> fingerprinted = new ArrayList<>();
        for (String entry : listed.configured() ? configuredList(listed.value())
                : List.of(annotation.fingerprintMembers())) {
            BodyPointer member = pointer(where, listed.key(), entry);
            if (fingerprinted.stream().noneMatch(known -> known.text().equals(member.text()))) {
                fingerprinted.add(member);
            }
        }
        fingerprinted.sort(Comparator.comparing(BodyPointer::text));
        if (!fingerprinted.isEmpty() && fingerprint != IdempotencyFingerprint.JSON) {
            throw new IdempotencyDefinitionException(Messages.membersWithoutJson(where, listed.key(), listed.value(),
                    mode.key(), mode.value()));
        }

        String httpMethod = ResourceMethods.httpMethod(beanClass, method);
        if (httpMethod == null) {
            refuseOnTheMethod(members, method.getAnnotation(Idempotent.class));
            return Resolved.DEFAULT;
        }
        refuseArgumentsFingerprintOnTheMethod(members, method.getAnnotation(Idempotent.class));
        if (BODILESS.contains(httpMethod.toUpperCase(Locale.ROOT))) {
            Setting reading = pointer != null ? keyPointer
                    : fingerprint == IdempotencyFingerprint.JSON || fingerprint == IdempotencyFingerprint.MULTIPART
                            ? mode : null;
            if (reading != null) {
                throw new IdempotencyDefinitionException(Messages.bodyOfBodilessMethod(where, reading.key(),
                        reading.value(), httpMethod));
            }
        }
        if (pointer != null) {
            // a key read from the body as JSON: a body that is never JSON would be refused every time
            String neverJson = fingerprint == IdempotencyFingerprint.MULTIPART ? mode.key() + "='" + mode.value() + "'"
                    : ResourceMethods.consumesFormsOnly(beanClass, method);
            if (neverJson != null) {
                throw new IdempotencyDefinitionException(Messages.keyFromBodyNeverJson(where, keyPointer.key(),
                        keyPointer.value(), neverJson));
            }
        }
        return new Resolved(new KeySource(header.value(), pointer), new FingerprintRule(fingerprint, fingerprinted,
                ResourceMethods.consumesJsonOnly(beanClass, method)));
    }

    /** On a method without an HTTP request, an HTTP member set for that very method does nothing: refused. */
    private static void refuseOnTheMethod(Members members, Idempotent own) {
        List<Setting> onMethod = new ArrayList<>();
        for (String member : List.of(KEY_HEADER, KEY_FROM_BODY, FINGERPRINT, FINGERPRINT_MEMBERS)) {
            members.onMethodLevel(member).ifPresent(onMethod::add);
        }
        if (own != null) {
            annotated(KEY_HEADER, own.keyHeader(), !own.keyHeader().isEmpty()).ifPresent(onMethod::add);
            annotated(KEY_FROM_BODY, own.keyFromBody(), !own.keyFromBody().isEmpty()).ifPresent(onMethod::add);
            annotated(FINGERPRINT, own.fingerprint().name(), own.fingerprint() != IdempotencyFingerprint.BODY)
                    .ifPresent(onMethod::add);
            annotated(FINGERPRINT_MEMBERS, String.join(",", own.fingerprintMembers()),
                    own.fingerprintMembers().length > 0).ifPresent(onMethod::add);
        }
        if (!onMethod.isEmpty()) {
            Setting first = onMethod.get(0);
            throw new IdempotencyDefinitionException(Messages.httpMemberOnNonHttpMethod(members.where, first.key(),
                    first.value()));
        }
    }

    /**
     * The mirror of {@link #refuseOnTheMethod}: {@code fingerprintArguments=false} set for a
     * resource method does nothing there (its request is fingerprinted as {@code fingerprint}
     * says), and a retry with another body would get {@code 422} where it was meant to replay.
     */
    private static void refuseArgumentsFingerprintOnTheMethod(Members members, Idempotent own) {
        Optional<Setting> set = members.onMethodLevel(FINGERPRINT_ARGUMENTS)
                .filter(s -> s.value().equalsIgnoreCase("false"));
        if (set.isEmpty() && own != null) {
            set = annotated(FINGERPRINT_ARGUMENTS, "false", !own.fingerprintArguments());
        }
        set.ifPresent(setting -> {
            throw new IdempotencyDefinitionException(Messages.argumentsFingerprintOnResourceMethod(members.where,
                    setting.key(), setting.value()));
        });
    }

    private static Optional<Setting> annotated(String member, String value, boolean set) {
        return set ? Optional.of(new Setting("@Idempotent(" + member + ")", value)) : Optional.empty();
    }

    private static BodyPointer pointer(String where, String key, String text) {
        return BodyPointer.parse(text).orElseThrow(
                () -> new IdempotencyDefinitionException(Messages.invalidBodyPointer(where, key, text)));
    }

    /** MicroProfile Config's list syntax: comma-separated, {@code \,} for a comma in an entry. */
    private static List<String> configuredList(String value) {
        List<String> entries = new ArrayList<>();
        StringBuilder entry = new StringBuilder();
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c == '\\' && i + 1 < value.length() && value.charAt(i + 1) == ',') {
                entry.append(',');
                i++;
            } else if (c == ',') {
                entries.add(entry.toString().strip());
                entry.setLength(0);
            } else {
                entry.append(c);
            }
        }
        entries.add(entry.toString().strip());
        return entries.stream().filter(e -> !e.isEmpty()).toList();
    }
}
