package dev.idempotency.sample;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.reflect.Method;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;

import jakarta.transaction.Transactional;

import org.junit.jupiter.api.Test;

import dev.idempotency.Idempotent;

/**
 * The sample is copied: its {@code @Idempotent @Transactional} methods must roll back on every
 * exception they declare. Under a plain {@code @Transactional} a checked exception (an
 * {@code InterruptedException} while a worker is stopped mid-message) commits, and the library then
 * marks the work executed, as it must for writes that committed: the message stays PENDING and its
 * key answers "result not available" until its ttl ends, and work written before the exception
 * runs again after that.
 */
class SampleTransactionsTest {

    @Test
    void everyIdempotentTransactionalMethodOfTheSampleRollsBackOnTheExceptionsItDeclares() throws Exception {
        List<String> committingOnChecked = new ArrayList<>();
        List<Method> checked = new ArrayList<>();
        for (Class<?> type : sampleClasses()) {
            for (Method method : type.getDeclaredMethods()) {
                Transactional transactional = method.getAnnotation(Transactional.class);
                if (transactional == null || !method.isAnnotationPresent(Idempotent.class)) {
                    continue;
                }
                checked.add(method);
                for (Class<?> thrown : method.getExceptionTypes()) {
                    boolean rollsBack = Arrays.stream(transactional.rollbackOn()).anyMatch(on -> on.isAssignableFrom(thrown));
                    if (!RuntimeException.class.isAssignableFrom(thrown) && !rollsBack) {
                        committingOnChecked.add(type.getSimpleName() + "." + method.getName() + " throws " + thrown.getSimpleName());
                    }
                }
            }
        }

        assertThat(checked).as("the sample's idempotent transactional methods").hasSizeGreaterThanOrEqualTo(3);
        assertThat(committingOnChecked).as("methods whose transaction commits on a checked exception").isEmpty();
    }

    private static List<Class<?>> sampleClasses() throws IOException, URISyntaxException, ClassNotFoundException {
        Path root = Path.of(PaymentResource.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        List<Class<?>> classes = new ArrayList<>();
        try (Stream<Path> files = Files.walk(root.resolve("dev/idempotency/sample"))) {
            for (Path file : files.filter(f -> f.toString().endsWith(".class")).toList()) {
                String name = root.relativize(file).toString().replace(file.getFileSystem().getSeparator(), ".");
                classes.add(Class.forName(name.substring(0, name.length() - ".class".length()), false,
                        SampleTransactionsTest.class.getClassLoader()));
            }
        }
        return classes;
    }
}
