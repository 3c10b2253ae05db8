package dev.idempotency.invocation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.reflect.Method;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Future;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.idempotency.exceptions.IdempotencyDefinitionException;

class ResultShapeTest {

    public record Payment(String id, long amount) {
    }

    public static class Bean {
        public Bean() {
        }
    }

    public static class NoCreator {
        public NoCreator(String value) {
        }
    }

    public abstract static class Shape {
    }

    /** Its detail is read back as a Map, its amount as a BigDecimal: a duplicate's cast fails. */
    public record Loose(String id, Object detail, Number amount) {
    }

    public record Parts(String id, List<Number> parts) {
    }

    public record Outer(String id, Loose inner) {
    }

    public record Chain(String id, Chain next, Optional<Payment> payment) {
    }

    @SuppressWarnings("unused")
    static class Returns<T> {
        public void none() {
        }

        public Payment record() {
            return null;
        }

        public List<Payment> list() {
            return null;
        }

        public Optional<Payment> optional() {
            return null;
        }

        public Map<String, List<Payment>> map() {
            return null;
        }

        public long primitive() {
            return 0;
        }

        public Bean bean() {
            return null;
        }

        public Payment[] array() {
            return null;
        }

        public CompletionStage<Payment> stage() {
            return null;
        }

        public CompletableFuture<Void> voidStage() {
            return null;
        }

        public Stream<Payment> stream() {
            return null;
        }

        public Iterator<Payment> iterator() {
            return null;
        }

        public Future<Payment> future() {
            return null;
        }

        public Object object() {
            return null;
        }

        public T variable() {
            return null;
        }

        public List<?> wildcard() {
            return null;
        }

        @SuppressWarnings("rawtypes")
        public List raw() {
            return null;
        }

        public NoCreator noCreator() {
            return null;
        }

        public Shape shape() {
            return null;
        }

        public CompletionStage<Stream<Payment>> stageOfStream() {
            return null;
        }

        public Number number() {
            return null;
        }

        public CharSequence text() {
            return null;
        }

        public Loose loose() {
            return null;
        }

        public CompletionStage<Parts> parts() {
            return null;
        }

        public List<Outer> outer() {
            return null;
        }

        public Chain chain() {
            return null;
        }
    }

    private static ResultShape shape(String name) throws NoSuchMethodException {
        Method method = Returns.class.getMethod(name);
        return ResultShape.of("bean Returns, method " + name, method);
    }

    @ParameterizedTest
    @ValueSource(strings = {"record", "list", "optional", "map", "primitive", "bean", "array", "chain"})
    void valuesJsonbCanReadBackAreAccepted(String name) throws Exception {
        assertThat(shape(name).kind()).isEqualTo(ResultShape.Kind.VALUE);
    }

    @Test
    void voidAndStagesAreRecognised() throws Exception {
        assertThat(shape("none").kind()).isEqualTo(ResultShape.Kind.VOID);
        assertThat(shape("stage").kind()).isEqualTo(ResultShape.Kind.STAGE);
        assertThat(shape("stage").valueType()).isEqualTo(Payment.class);
        assertThat(shape("voidStage").valueType()).isEqualTo(Void.class);
    }

    @ParameterizedTest
    @ValueSource(strings = {"stream", "iterator", "future", "object", "variable", "wildcard", "raw", "noCreator", "shape",
        "stageOfStream", "number", "text", "loose", "parts", "outer"})
    void typesThatCannotRoundTripFailTheDeployment(String name) {
        assertThatThrownBy(() -> shape(name))
                .isInstanceOf(IdempotencyDefinitionException.class)
                .hasMessageStartingWith("IDEMP0112: bean Returns, method " + name + ": the return type ");
    }
}
