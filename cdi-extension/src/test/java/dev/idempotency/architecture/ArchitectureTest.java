package dev.idempotency.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

/**
 * The arrows of the house, read from the sources of every module (imports and fully qualified
 * names in code, comments left out): they run one way, from the CDI layer and the store modules
 * down to the API and the SPI, and no module reaches into another's internals.
 */
class ArchitectureTest {

    /** The packages of the core that are implementation, not API, SPI or supported store support. */
    private static final Pattern IMPLEMENTATION = Pattern.compile(
            "\\bdev\\.idempotency\\.(internal|config|claim|invocation|lookup|tokens|cdi|jaxrs|openapi|store)\\.[A-Za-z]");
    /**
     * What no other module's main code may name: the core's implementation packages (not its
     * stores, its JAX-RS and OpenAPI parts that users see, nor spi.support).
     */
    private static final Pattern INTERNALS = Pattern.compile(
            "\\bdev\\.idempotency\\.(internal|config|claim|invocation|lookup|tokens|cdi|jaxrs\\.internal)\\.[A-Za-z]");
    private static final Pattern LAYERS_ABOVE_THE_STORES = Pattern.compile(
            "\\bdev\\.idempotency\\.(cdi|jaxrs|openapi)\\.[A-Za-z]");
    private static final Path REPOSITORY = Path.of("..").toAbsolutePath().normalize();
    private static final Path CORE = REPOSITORY.resolve("cdi-extension/src/main/java/dev/idempotency");

    @Test
    void theApiAndTheSpiNeverReferToTheImplementation() {
        List<String> found = new ArrayList<>();
        found.addAll(references(sources(CORE, false), IMPLEMENTATION));
        found.addAll(references(sources(CORE.resolve("exceptions"), true), IMPLEMENTATION));
        found.addAll(references(sources(CORE.resolve("spi"), true), IMPLEMENTATION));

        assertThat(sources(CORE.resolve("exceptions"), true)).as("the API's exceptions are read").isNotEmpty();
        assertThat(found).as("API (the root package, exceptions) and SPI (spi, spi.support) referring to the implementation")
                .isEmpty();
    }

    @Test
    void theStoresOfTheCoreKnowNothingOfCdiOrHttp() {
        assertThat(references(sources(CORE.resolve("store"), true), LAYERS_ABOVE_THE_STORES))
                .as("the in-memory and tiered stores referring to the CDI, JAX-RS or OpenAPI layers").isEmpty();
    }

    @Test
    void noOtherModuleReachesIntoTheCoresInternals() {
        List<String> found = new ArrayList<>();
        for (String module : List.of("jpa-store", "infinispan-store", "redis-store", "benchmarks", "integration-tests")) {
            found.addAll(references(sources(REPOSITORY.resolve(module + "/src/main/java"), true), INTERNALS));
        }

        assertThat(sources(REPOSITORY.resolve("jpa-store/src/main/java"), true)).as("the modules are read").isNotEmpty();
        assertThat(found).as("main code of other modules referring to the core's implementation packages").isEmpty();
    }

    private static List<Path> sources(Path folder, boolean deep) {
        if (!Files.isDirectory(folder)) {
            return List.of();
        }
        try (Stream<Path> files = deep ? Files.walk(folder) : Files.list(folder)) {
            return files.filter(file -> file.toString().endsWith(".java")).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** @return "file:line: text" for each line of code (not comment) that names a package the pattern matches */
    private static List<String> references(List<Path> files, Pattern forbidden) {
        List<String> found = new ArrayList<>();
        for (Path file : files) {
            List<String> lines;
            try {
                lines = Files.readAllLines(file);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            boolean inComment = false;
            for (int i = 0; i < lines.size(); i++) {
                String code = lines.get(i).trim();
                if (inComment) {
                    inComment = !code.contains("*/");
                    continue;
                }
                if (code.startsWith("/*")) {
                    inComment = !code.contains("*/");
                    continue;
                }
                int lineComment = code.indexOf("//");
                if (lineComment >= 0) {
                    code = code.substring(0, lineComment);
                }
                Matcher matcher = forbidden.matcher(code);
                if (matcher.find()) {
                    found.add(REPOSITORY.relativize(file) + ":" + (i + 1) + ": " + code);
                }
            }
        }
        return found;
    }
}
