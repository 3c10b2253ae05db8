package dev.idempotency.cdi;

import java.lang.invoke.MethodType;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

import dev.idempotency.config.BeanMethod;
import dev.idempotency.config.IdempotencyPolicy;
import dev.idempotency.internal.Messages;
import dev.idempotency.invocation.MethodPlan;

/**
 * Finds endpoints that would share a key space by accident: two methods with one explicit name,
 * unless each says {@code sharedName}; and methods that share one on purpose but would never
 * meet, their keys scoped differently, or whose results differ (one's stored result would be read
 * back as the other's type). (Derived identities never meet: they hold the bean class,
 * the method and its parameter types.)
 */
final class EndpointNames {

    private EndpointNames() {
    }

    /**
     * @param policies the resource methods' policies
     * @param plans the non-HTTP methods' plans
     * @return one coded message per name shared without {@code sharedName} on each of its methods
     */
    static List<String> conflicts(Map<BeanMethod, IdempotencyPolicy> policies,
            Map<BeanMethod, Optional<MethodPlan>> plans) {
        return conflicts(policies, plans, null);
    }

    /**
     * @param name an endpoint name
     * @param policies the resource methods' policies
     * @param plans the non-HTTP methods' plans
     * @return the coded message of that name's conflict, if it has one (a component found at its
     *     first call is judged by its own name, not refused for others')
     */
    static List<String> conflictsOf(String name, Map<BeanMethod, IdempotencyPolicy> policies,
            Map<BeanMethod, Optional<MethodPlan>> plans) {
        return conflicts(policies, plans, name);
    }

    private static List<String> conflicts(Map<BeanMethod, IdempotencyPolicy> policies,
            Map<BeanMethod, Optional<MethodPlan>> plans, String only) {
        Map<String, List<BeanMethod>> byName = new TreeMap<>();
        Map<BeanMethod, IdempotencyPolicy> all = new HashMap<>(policies);
        plans.forEach((method, plan) -> plan.ifPresent(p -> all.put(method, p.policy())));
        all.forEach((method, policy) -> {
            if (only == null || only.equals(policy.endpoint())) {
                byName.computeIfAbsent(policy.endpoint(), n -> new ArrayList<>()).add(method);
            }
        });
        List<String> conflicts = new ArrayList<>();
        byName.forEach((name, methods) -> {
            if (methods.size() < 2) {
                return;
            }
            if (!methods.stream().allMatch(m -> all.get(m).sharedName())) {
                conflicts.add(Messages.nameTaken(name, methods.stream()
                        .map(m -> Messages.where(m.beanClass(), m.method())).sorted().toList()));
            } else if (methods.stream().map(m -> keySpace(all.get(m))).distinct().count() > 1) {
                // their keys are hashed with the scope (and a token's use without the endpoint): they never meet
                conflicts.add(Messages.sharedNameKeySpaces(name, methods.stream()
                        .map(m -> Messages.where(m.beanClass(), m.method()) + " (" + keySpace(all.get(m)) + ")")
                        .sorted().toList()));
            } else {
                Map<BeanMethod, String> results = new HashMap<>();
                methods.forEach(m -> plans.getOrDefault(m, Optional.empty()).ifPresent(p -> results.put(m, returned(p))));
                if (results.values().stream().distinct().count() > 1) {
                    // one key's stored result would be read by the other as its own type
                    conflicts.add(Messages.sharedNameResults(name, results.entrySet().stream()
                            .map(e -> Messages.where(e.getKey().beanClass(), e.getKey().method()) + " (returns "
                                    + e.getValue() + ")")
                            .sorted().toList()));
                }
            }
        });
        return conflicts;
    }

    /**
     * @return the type a method's stored result is read back as: its value's (a stage's value's), a
     *     primitive as its wrapper (stored alike), "nothing" for void
     */
    private static String returned(MethodPlan plan) {
        Type type = plan.result().valueType();
        if (type == null || type == void.class || type == Void.class) {
            return "nothing";
        }
        return type instanceof Class<?> primitive && primitive.isPrimitive()
                ? MethodType.methodType(primitive).wrap().returnType().getName()
                : type.getTypeName();
    }

    /** @return what, besides the name, makes a method's keys: its scope, and whether they are issued tokens */
    private static String keySpace(IdempotencyPolicy policy) {
        return "scope " + policy.scope() + (policy.serverIssuedKeys() ? ", server-issued keys" : "");
    }
}
