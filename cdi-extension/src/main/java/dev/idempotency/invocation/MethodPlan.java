package dev.idempotency.invocation;

import java.lang.reflect.Method;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import dev.idempotency.config.IdempotencyPolicy;
import dev.idempotency.exceptions.IdempotencyDefinitionException;
import dev.idempotency.exceptions.IdempotencyException;
import dev.idempotency.internal.Hashing;
import dev.idempotency.internal.Messages;

/**
 * Everything the interceptor needs for one non-HTTP {@code @Idempotent} method, built and checked
 * once at deployment: the policy, where the key comes from, which arguments are fingerprinted,
 * and the result's shape.
 *
 * @param policy the validated policy
 * @param where "bean X, method m", for messages
 * @param keys where the key comes from
 * @param fingerprinted the indices of the fingerprinted arguments
 * @param fingerprintTypes their generic types
 * @param canons how each one's JSON is put in one order (sets and maps)
 * @param result what the method returns
 */
public record MethodPlan(IdempotencyPolicy policy, String where, KeyExtractor keys, int[] fingerprinted,
        Type[] fingerprintTypes, ArgumentCanon[] canons, ResultShape result) {

    /**
     * @param beanClass the bean class
     * @param method a method with {@code @IdempotencyKey} parameters
     * @param policy its resolved policy
     * @param maxKeyLength the longest key part
     * @return the plan
     * @throws IdempotencyDefinitionException when a key path or the return type is unsupported
     */
    public static MethodPlan of(Class<?> beanClass, Method method, IdempotencyPolicy policy, int maxKeyLength) {
        String where = Messages.where(beanClass, method);
        KeyExtractor keys = KeyExtractor.of(beanClass, method, maxKeyLength);
        ResultShape result = ResultShape.of(where, method);
        Set<Integer> keyIndices = keys.wholeKeyParameterIndices();
        List<Integer> indices = new ArrayList<>();
        if (policy.fingerprintArguments()) {
            Class<?>[] types = method.getParameterTypes();
            for (int i = 0; i < types.length; i++) {
                if (!keyIndices.contains(i) && !types[i].getName().startsWith("jakarta.jms.")) {
                    indices.add(i);
                }
            }
        }
        int[] fingerprinted = indices.stream().mapToInt(Integer::intValue).toArray();
        Type[] generic = method.getGenericParameterTypes();
        Type[] fingerprintTypes = new Type[fingerprinted.length];
        ArgumentCanon[] canons = new ArgumentCanon[fingerprinted.length];
        for (int i = 0; i < fingerprinted.length; i++) {
            fingerprintTypes[i] = generic[fingerprinted[i]];
            canons[i] = ArgumentCanon.of(fingerprintTypes[i]);
        }
        return new MethodPlan(policy, where, keys, fingerprinted, fingerprintTypes, canons, result);
    }

    /**
     * @param codec writes arguments as JSON-B
     * @param arguments the invocation's arguments
     * @return the fingerprint of the method and its non-key arguments
     */
    public String fingerprint(ResultCodec codec, Object[] arguments) {
        Hashing hashing = Hashing.sha256().add("method").add(policy.endpoint());
        for (int i = 0; i < fingerprinted.length; i++) {
            try {
                hashing.add(canons[i].apply(codec.write(arguments[fingerprinted[i]], fingerprintTypes[i])));
            } catch (RuntimeException e) {
                throw new IdempotencyException(Messages.argumentsNotFingerprintable(where, fingerprinted[i]), e);
            }
        }
        return hashing.finish();
    }
}
