package dev.idempotency.invocation;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Type;
import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.Test;

class ResultCodecTest {

    public record Payment(String id, long amount, List<String> tags) {
    }

    static List<Payment> listType() {
        return null;
    }

    static Optional<Payment> optionalType() {
        return null;
    }

    private static Type type(String method) throws NoSuchMethodException {
        return ResultCodecTest.class.getDeclaredMethod(method).getGenericReturnType();
    }

    @Test
    void aLoneSurrogateIsWrittenAsItselfNotAsAQuestionMark() {
        // UTF-8 has no bytes for a lone surrogate: String.getBytes wrote '?', so "x\uD800" and
        // "x?" were one fingerprint, and a result holding one was replayed changed.
        try (ResultCodec codec = new ResultCodec()) {
            byte[] lone = codec.write("x\uD800", String.class);

            assertThat(lone).isNotEqualTo(codec.write("x?", String.class));
            assertThat(codec.read(lone, String.class)).isEqualTo("x\uD800");
            assertThat(codec.write("\uD83D\uDE00", String.class)).as("a pair is a character, written as it is")
                    .isEqualTo("\"\uD83D\uDE00\"".getBytes(java.nio.charset.StandardCharsets.UTF_8));
        }
    }

    @Test
    void genericValuesRoundTripAsEqualValues() throws Exception {
        try (ResultCodec codec = new ResultCodec()) {
            List<Payment> payments = List.of(new Payment("p-1", 1250, List.of("eu")), new Payment("p-2", 10, List.of()));

            Object back = codec.read(codec.write(payments, type("listType")), type("listType"));

            assertThat(back).isEqualTo(payments).isNotSameAs(payments);
        }
    }

    @Test
    void optionalAndNullRoundTrip() throws Exception {
        try (ResultCodec codec = new ResultCodec()) {
            Optional<Payment> some = Optional.of(new Payment("p", 1, List.of()));
            assertThat(codec.read(codec.write(some, type("optionalType")), type("optionalType"))).isEqualTo(some);
            assertThat(codec.read(codec.write(Optional.empty(), type("optionalType")), type("optionalType")))
                    .isEqualTo(Optional.empty());
            assertThat(codec.read(codec.write(null, Payment.class), Payment.class)).isNull();
        }
    }

    @Test
    void aNullInPlaceOfAnOptionalIsWrittenAsAnEmptyOne() throws Exception {
        // Found by ResultCodecFuzzTest: it threw a NullPointerException, so a method returning null
        // for an Optional had no replayable result, and a null Optional argument failed the call.
        try (ResultCodec codec = new ResultCodec()) {
            byte[] json = codec.write(null, type("optionalType"));

            assertThat(json).isEqualTo(codec.write(Optional.empty(), type("optionalType")));
            assertThat(codec.read(json, type("optionalType"))).isEqualTo(Optional.empty());
        }
    }
}
