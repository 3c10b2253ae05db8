package dev.idempotency.docs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The message codes ({@code IDEMPnnnn}) of every module's main code against their two pages:
 * docs/message-codes.md, whose table gives each range to a module and its catalogue class, and
 * docs/troubleshooting.md, which explains each code. A code is <em>written</em> where it occurs in
 * a string literal (a mention in a comment or javadoc is not); it must be written in a catalogue
 * class the table names, and once in all of them.
 */
class MessageCodesTest {

    private static final Pattern CODE = Pattern.compile("IDEMP\\d{4}");
    /** A row of the ranges table: {@code | `05xx` | `jpa-store` (...) | `dev.idempotency.jpa.JpaMessages` | ... |}. */
    private static final Pattern RANGE_ROW = Pattern.compile(
            "^\\|\\s*`(\\d{2})xx`\\s*\\|\\s*`([^`]+)`[^|]*\\|\\s*`([\\w.]+)`\\s*\\|");
    /** A row of the troubleshooting page's table of codes: {@code | `IDEMP0101` | ... |}. */
    private static final Pattern TROUBLESHOOTING_ROW = Pattern.compile("^\\|\\s*`(IDEMP\\d{4})`\\s*\\|");
    private static final String CODES_SECTION = "## Message codes";

    /** A range's owner, as docs/message-codes.md gives it. */
    private record Owner(String module, String catalogue) {
    }

    /** Where a code is written: a string literal in a main source file. */
    private record Written(String module, Path file, int line) {
        @Override
        public String toString() {
            return file + ":" + line;
        }
    }

    private static Path repository;
    private static Map<String, Owner> ranges;
    /** Every code written in a string literal of main code, with each place. */
    private static Map<String, List<Written>> written;
    private static List<String> troubleshootingRows;

    @BeforeAll
    static void read() throws IOException {
        repository = repository();
        ranges = ranges(repository.resolve("docs/message-codes.md"));
        written = new TreeMap<>();
        for (Path file : mainSources(repository)) {
            String module = module(repository.relativize(file));
            for (Literal literal : stringLiterals(Files.readString(file))) {
                Matcher code = CODE.matcher(literal.text());
                while (code.find()) {
                    written.computeIfAbsent(code.group(), c -> new ArrayList<>())
                            .add(new Written(module, repository.relativize(file), literal.line()));
                }
            }
        }
        troubleshootingRows = troubleshootingRows(repository.resolve("docs/troubleshooting.md"));
    }

    @Test
    void theModulesWriteMessageCodes() {
        assertThat(written).as("codes written in the main code of the modules under " + repository)
                .containsKeys("IDEMP0101", "IDEMP0501", "IDEMP0601", "IDEMP0701");
    }

    @Test
    void everyCodeIsWrittenInACatalogueClassTheRangesTableNames() {
        Set<Path> catalogues = new TreeSet<>();
        for (Owner owner : ranges.values()) {
            Path file = catalogueFile(owner);
            assertThat(repository.resolve(file)).as("the catalogue class docs/message-codes.md names").isRegularFile();
            catalogues.add(file);
        }
        List<String> outside = written.entrySet().stream()
                .flatMap(code -> code.getValue().stream()
                        .filter(place -> !catalogues.contains(place.file()))
                        .map(place -> code.getKey() + " at " + place))
                .toList();

        assertThat(outside).as("codes written outside the catalogue classes " + catalogues
                + " (write the message in its module's catalogue, and call it)").isEmpty();
    }

    @Test
    void everyCodeIsWrittenInExactlyOnePlace() {
        Map<String, List<Written>> twice = written.entrySet().stream()
                .filter(code -> code.getValue().size() > 1)
                .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue, (a, b) -> a, TreeMap::new));

        assertThat(twice).as("codes written in more than one string literal (one catalogue method each)").isEmpty();
    }

    @Test
    void everyCodeLiesInARangeItsModuleAndCatalogueOwn() {
        List<String> misplaced = new ArrayList<>();
        written.forEach((code, places) -> {
            String range = code.substring(5, 7);
            Owner owner = ranges.get(range);
            for (Written place : places) {
                if (owner == null) {
                    misplaced.add(code + " at " + place + ": docs/message-codes.md gives " + range + "xx to no module");
                } else if (!owner.module().equals(place.module()) || !catalogueFile(owner).equals(place.file())) {
                    misplaced.add(code + " at " + place + " (module " + place.module() + "): docs/message-codes.md gives "
                            + range + "xx to " + owner.module() + ", " + owner.catalogue());
                }
            }
        });

        assertThat(misplaced).as("codes outside the ranges of their module").isEmpty();
    }

    @Test
    void everyCodeHasAnEntryOnTheTroubleshootingPage() {
        Set<String> missing = new TreeSet<>(written.keySet());
        missing.removeAll(troubleshootingRows);

        assertThat(missing).as("codes without a row in the '" + CODES_SECTION + "' table of docs/troubleshooting.md")
                .isEmpty();
    }

    @Test
    void theTroubleshootingPageHasOneRowPerCodeAndNoneForACodeNoModuleWrites() {
        List<String> repeated = troubleshootingRows.stream()
                .filter(code -> troubleshootingRows.indexOf(code) != troubleshootingRows.lastIndexOf(code))
                .distinct().toList();
        Set<String> unknown = new TreeSet<>(troubleshootingRows);
        unknown.removeAll(written.keySet());

        assertThat(repeated).as("codes with more than one row on docs/troubleshooting.md").isEmpty();
        assertThat(unknown).as("rows of docs/troubleshooting.md for codes no module writes").isEmpty();
    }

    /** @return the repository's root: surefire runs in cdi-extension/, so it is the parent folder */
    private static Path repository() {
        for (Path candidate : List.of(Path.of(".."), Path.of("."))) {
            Path folder = candidate.toAbsolutePath().normalize();
            if (Files.isRegularFile(folder.resolve("docs/message-codes.md"))
                    && Files.isDirectory(folder.resolve("cdi-extension/src/main/java"))) {
                return folder;
            }
        }
        return fail("the repository's root (with docs/message-codes.md and cdi-extension/src/main/java) is neither the"
                + " parent of the working directory nor the working directory itself: " + Path.of("").toAbsolutePath());
    }

    /** @return the owner of each range, by its first two digits */
    private static Map<String, Owner> ranges(Path page) throws IOException {
        Map<String, Owner> owners = new TreeMap<>();
        for (String line : Files.readAllLines(page)) {
            Matcher row = RANGE_ROW.matcher(line);
            if (row.find()) {
                Owner previous = owners.put(row.group(1), new Owner(row.group(2), row.group(3)));
                assertThat(previous).as("a second row for " + row.group(1) + "xx in " + page).isNull();
            }
        }
        assertThat(owners).as("the ranges table of " + page + " (rows like | `01xx` | `module` | `fully.qualified.Class` | area |)")
                .isNotEmpty();
        return owners;
    }

    /** @return the code of each row of the table under the page's codes section, in order */
    private static List<String> troubleshootingRows(Path page) throws IOException {
        List<String> lines = Files.readAllLines(page);
        int section = lines.indexOf(CODES_SECTION);
        assertThat(section).as("the section '" + CODES_SECTION + "' of " + page).isNotNegative();
        List<String> codes = new ArrayList<>();
        for (String line : lines.subList(section + 1, lines.size())) {
            if (line.startsWith("## ")) {
                break;
            }
            Matcher row = TROUBLESHOOTING_ROW.matcher(line);
            if (row.find()) {
                codes.add(row.group(1));
            }
        }
        return codes;
    }

    private static Path catalogueFile(Owner owner) {
        return Path.of(owner.module(), "src/main/java", owner.catalogue().replace('.', '/') + ".java");
    }

    /** @return the module of a main source file: the folders before its {@code src/main/java} */
    private static String module(Path relative) {
        String path = relative.toString().replace('\\', '/');
        return path.substring(0, path.indexOf("/src/main/java/"));
    }

    /** @return every .java file under a {@code src/main/java} folder of any module, build output left out */
    private static List<Path> mainSources(Path root) throws IOException {
        List<Path> found = new ArrayList<>();
        Files.walkFileTree(root, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path folder, BasicFileAttributes attributes) {
                String name = folder.getFileName() == null ? "" : folder.getFileName().toString();
                boolean skipped = !folder.equals(root) && (name.startsWith(".") || name.equals("target")
                        || name.equals("node_modules"));
                return skipped ? FileVisitResult.SKIP_SUBTREE : FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) {
                String path = root.relativize(file).toString().replace('\\', '/');
                if (path.endsWith(".java") && path.contains("/src/main/java/")) {
                    found.add(file);
                }
                return FileVisitResult.CONTINUE;
            }
        });
        assertThat(found).as("main sources under " + root).isNotEmpty();
        found.sort(null);
        return found;
    }

    /** A string literal (or text block) of a source file: its text as written, escapes included. */
    private record Literal(String text, int line) {
    }

    /**
     * @param source a Java source file
     * @return its string literals and text blocks, comments and character literals left out
     */
    static List<Literal> stringLiterals(String source) {
        List<Literal> literals = new ArrayList<>();
        int line = 1;
        int i = 0;
        int n = source.length();
        while (i < n) {
            char c = source.charAt(i);
            if (c == '\n') {
                line++;
                i++;
            } else if (source.startsWith("//", i)) {
                while (i < n && source.charAt(i) != '\n') {
                    i++;
                }
            } else if (source.startsWith("/*", i)) {
                int end = source.indexOf("*/", i + 2);
                end = end < 0 ? n : end + 2;
                line += count(source, i, end);
                i = end;
            } else if (source.startsWith("\"\"\"", i)) {
                int start = i + 3;
                int end = start;
                while (end < n && !source.startsWith("\"\"\"", end)) {
                    end += source.charAt(end) == '\\' ? 2 : 1;
                }
                end = Math.min(end, n);
                literals.add(new Literal(source.substring(start, end), line));
                line += count(source, i, end);
                i = Math.min(end + 3, n);
            } else if (c == '"' || c == '\'') {
                int start = i + 1;
                int end = start;
                while (end < n && source.charAt(end) != c && source.charAt(end) != '\n') {
                    end += source.charAt(end) == '\\' ? 2 : 1;
                }
                end = Math.min(end, n);
                if (c == '"') {
                    literals.add(new Literal(source.substring(start, end), line));
                }
                i = end < n && source.charAt(end) == c ? end + 1 : end;
            } else {
                i++;
            }
        }
        return literals;
    }

    private static int count(String source, int from, int to) {
        int lines = 0;
        for (int i = from; i < to; i++) {
            if (source.charAt(i) == '\n') {
                lines++;
            }
        }
        return lines;
    }
}
