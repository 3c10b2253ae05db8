package dev.idempotency.docs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.io.IOException;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.math.BigInteger;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import javax.xml.parsers.DocumentBuilderFactory;

import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import jakarta.ws.rs.POST;

import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfigBuilder;
import org.eclipse.microprofile.config.Config;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;
import org.xml.sax.InputSource;

import dev.idempotency.IdempotencyOutcome;
import dev.idempotency.Idempotent;
import dev.idempotency.config.IdempotencyPolicy;
import dev.idempotency.config.LibrarySettings;
import dev.idempotency.config.PolicyResolver;
import dev.idempotency.exceptions.IdempotencyDefinitionException;
import dev.idempotency.jaxrs.IdempotencyProblem;
import dev.idempotency.spi.support.ConfigLookup;

/**
 * Every code block of the documentation that shows a command or a configuration is one the code,
 * the poms and the scripts agree with. The pages are README.md, BENCHMARKS.md and
 * {@code docs/**}{@code /*.md} of the repository root (the parent of cdi-extension, where Maven runs
 * this test). The project's facts (keys, profiles, properties, modules, routes, defaults) are
 * gathered from its sources, poms and scripts, never from a list kept here; the only lists here
 * are Maven's phases and options, the tools' own properties and the shell's built-ins.
 *
 * <p>Every fenced block must be of a kind with a rule (else this test fails, so that a new kind of
 * block gets one). The rules:
 * <ul>
 * <li><b>Configuration</b> ({@code properties}), and {@code key=value} or {@code idempotency.*} in
 * backticks in the text: every key is one the code reads, that is an {@code idempotency.*} string
 * constant of the published modules' main sources (a trailing {@code .*} must match one), a key
 * under a prefix those sources pass through ({@code *PREFIX = "..."}, e.g. the Hot Rod client's),
 * or an {@code @Idempotent} override ({@code <class>/<method>/Idempotent/<member>},
 * {@code <class>/Idempotent/<member>}, {@code Idempotent/<member>}, or {@code <member>=<value>}
 * in the text) of a real member. A key written after "no " is one the code must not read. Values:
 * the core settings are loaded by {@link LibrarySettings#load} and the overrides (moved onto a
 * probe bean) resolved by {@link PolicyResolver}, from a MicroProfile Config built of the
 * example, without an error. The store modules' values are not parsed here: their classes are
 * not on this module's class path.</li>
 * <li><b>The configuration reference</b> (docs/configuration.md): its tables list exactly the
 * {@link LibrarySettings} keys and the {@link Idempotent} members, each default is the real one,
 * an integer range "A to B" accepts A and B and refuses A-1 and B+1, and every value listed as
 * allowed is accepted. Every key the published modules read appears in the docs.</li>
 * <li><b>Commands</b> ({@code bash}/{@code sh}/{@code shell}, and {@code ./mvnw ...},
 * {@code -D...}, {@code -P...}, {@code .../run} in backticks): {@code ./mvnw} names lifecycle
 * phases or plugin goals, Maven options it knows, {@code -P} profiles some pom defines, {@code -pl}
 * modules that exist, {@code -D} properties a pom declares, references or activates on, a Java
 * source or a script reads (or Maven's, Surefire's or the JDK's own, listed here), and a
 * {@code -Dtest} pattern matching a test class of the module. A script ({@code .ci/run},
 * {@code benchmarks/run}) exists, is executable and reads the variables set before it.
 * {@code curl} against localhost uses the demo's port and a route the sample app serves with
 * that method, JSON bodies of its request classes' fields, its demo users and the key header;
 * curl against a {@code .example} host is illustrative. The Quick start runs what .ci/run runs
 * and a profile at the phase its execution is bound to. Shell built-ins (echo, sleep, wait, loops)
 * are free.</li>
 * <li><b>XML</b>: well-formed; a {@code <dependency>} names a published module with the project's
 * groupId and version, or without a version one that a BOM of the project manages and the same page
 * imports; a BOM is imported (type {@code pom}, scope {@code import}, in {@code <dependencyManagement>})
 * at the project's version. The BOM manages the published modules at {@code ${project.version}} and
 * nothing else, inherits no parent (whose dependencyManagement it would hand to its users) and has
 * the project's version. A persistence unit's {@code dev.idempotency} classes exist; the Infinispan
 * cache definition is the store's default cache (from InfinispanSettings' source) under its
 * default name.</li>
 * <li><b>Illustrative</b>, only partly checked: Java (the library types, their members and
 * constants, and {@code @Idempotent} members it names exist), JSON (well-formed; a problem of
 * ours has the library's status, title and detail), Mermaid (not checked), and unlabeled blocks:
 * a deployment message is reproduced by {@link PolicyResolver}, a package listing is
 * cdi-extension's packages, a Prometheus sample is named and tagged as the counter is, an HTTP
 * exchange uses the sample's routes and the default headers; other unlabeled text must not
 * look like a command or a configuration.</li>
 * </ul>
 */
class DocumentedExamplesTest {

    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

    /** Properties that Maven, Surefire or the JDK read themselves, not the project's. */
    private static final Set<String> TOOL_PROPERTIES = Set.of("test", "it.test", "surefire.failIfNoSpecifiedTests",
            "failsafe.failIfNoSpecifiedTests", "skipTests", "skipITs", "maven.test.skip", "user.timezone");
    private static final Set<String> MAVEN_PHASES = Set.of("clean", "validate", "initialize", "generate-sources",
            "process-sources", "generate-resources", "process-resources", "compile", "process-classes",
            "generate-test-sources", "process-test-sources", "generate-test-resources", "process-test-resources",
            "test-compile", "process-test-classes", "test", "prepare-package", "package", "pre-integration-test",
            "integration-test", "post-integration-test", "verify", "install", "deploy", "site");
    private static final Set<String> MAVEN_FLAGS = Set.of("-am", "-amd", "-B", "--batch-mode", "-ntp",
            "--no-transfer-progress", "-o", "--offline", "-q", "--quiet", "-e", "-U");
    private static final Set<String> SHELL_BUILTINS = Set.of("echo", "sleep", "wait", "done", "cd", "export");
    private static final Set<String> CONFIG_LANGUAGES = Set.of("properties", "microprofile-config");
    private static final Set<String> SHELL_LANGUAGES = Set.of("bash", "sh", "shell");

    private static Docs docs;
    private static Code code;

    @BeforeAll
    static void readTheDocsAndTheCode() throws IOException {
        if (!Files.isRegularFile(ROOT.resolve("pom.xml")) || !Files.isDirectory(ROOT.resolve("docs"))
                || !Files.isRegularFile(ROOT.resolve("cdi-extension/pom.xml"))) {
            fail("the repository root is not " + ROOT + " (no pom.xml, docs/ or cdi-extension/ there): run this"
                    + " test from the cdi-extension folder, as Maven does");
        }
        docs = Docs.read(ROOT);
        code = Code.read(ROOT);
    }

    // --- kinds of blocks ---------------------------------------------------------------------------

    @Test
    void everyBlockIsOfAKindThisTestHasARuleFor() {
        List<String> problems = new ArrayList<>();
        for (Block block : docs.blocks) {
            String lang = block.lang;
            boolean known = CONFIG_LANGUAGES.contains(lang) || SHELL_LANGUAGES.contains(lang)
                    || Set.of("xml", "java", "json", "mermaid", "", "text").contains(lang);
            if (!known) {
                problems.add(block + ": a ```" + lang + " block, which DocumentedExamplesTest has no rule for");
            } else if (lang.isEmpty() || lang.equals("text")) {
                String first = block.text.strip();
                if (Pattern.compile("(?m)^(\\./|mvn|curl |[\\w.-]+(/[\\w.-]+)*=)").matcher(first).find()
                        && !isPackageListing(block) && !isMessageSample(block)) {
                    problems.add(block + ": an unlabeled block that looks like a command or a configuration;"
                            + " label it (```bash, ```properties) so that its rule applies");
                }
            }
        }
        assertThat(problems).isEmpty();
        assertThat(docs.blocks).as("the docs' fenced blocks").isNotEmpty();
    }

    // --- configuration -----------------------------------------------------------------------------

    @Test
    void everyConfigurationKeyShownIsOneTheCodeReads() {
        List<String> problems = new ArrayList<>();
        for (ConfigExample example : configExamples()) {
            for (String key : example.entries.keySet()) {
                if (example.negated) {
                    if (isReadKey(key)) {
                        problems.add(example.where + ": says there is no " + key + ", but the code reads it");
                    }
                } else if (!isReadKey(key)) {
                    problems.add(example.where + ": " + key + " is no key the code reads (known: "
                            + code.keys + ", prefixes " + code.passThroughPrefixes + ", @Idempotent overrides)");
                }
            }
        }
        assertThat(problems).isEmpty();
    }

    @Test
    void everyCoreSettingShownIsAcceptedByTheRealParsers() throws Exception {
        List<String> problems = new ArrayList<>();
        int exercised = 0;
        for (ConfigExample example : configExamples()) {
            if (example.negated) {
                continue;
            }
            Map<String, String> library = new LinkedHashMap<>();
            Map<String, String> overrides = new LinkedHashMap<>();
            example.entries.forEach((key, value) -> {
                if (value == null) {
                    return;
                }
                if (librarySettingKeys().contains(key)) {
                    library.put(key, value);
                }
                overrideOnProbe(key).ifPresent(probeKey -> overrides.put(probeKey, value));
            });
            if (!library.isEmpty()) {
                exercised++;
                try {
                    LibrarySettings.load(ConfigLookup.of(config(library)));
                } catch (IdempotencyDefinitionException e) {
                    problems.add(example.where + ": " + library + " fails the deployment: " + e.getMessage());
                }
            }
            if (!overrides.isEmpty()) {
                exercised++;
                try {
                    resolveProbe(overrides);
                } catch (IdempotencyDefinitionException e) {
                    problems.add(example.where + ": " + example.entries + " fails the deployment: " + e.getMessage());
                }
            }
        }
        assertThat(problems).isEmpty();
        assertThat(exercised).as("examples fed to the parsers").isPositive();
    }

    @Test
    void theConfigurationReferenceListsEveryLibrarySettingWithItsRealDefaultAndBounds() throws Exception {
        Table table = docs.table("docs/configuration.md", "key");
        LibrarySettings defaults = LibrarySettings.load(ConfigLookup.of(config(Map.of())));
        List<String> problems = new ArrayList<>();
        Set<String> listed = new TreeSet<>();
        for (List<String> row : table.rows) {
            String key = unquote(spans(row.get(0)).get(0));
            listed.add(key);
            List<String> defaultValue = spans(row.get(table.column("default")));
            if (!defaultValue.isEmpty()) {
                Optional<String> error = loadError(Map.of(key, defaultValue.get(0)));
                if (error.isPresent()) {
                    problems.add(key + ": the documented default " + defaultValue.get(0) + " is refused: " + error.get());
                } else if (!LibrarySettings.load(ConfigLookup.of(config(Map.of(key, defaultValue.get(0)))))
                        .equals(defaults)) {
                    problems.add(key + ": the documented default " + defaultValue.get(0) + " is not the default");
                }
            }
            String allowed = row.get(table.column("allowed")).replace("`", "").strip();
            Matcher range = Pattern.compile("(-?\\d+)(?: \\([^)]*\\))? to (-?\\d+)").matcher(allowed);
            if (range.matches()) {
                BigInteger min = new BigInteger(range.group(1));
                BigInteger max = new BigInteger(range.group(2));
                for (BigInteger accepted : List.of(min, max)) {
                    loadError(Map.of(key, accepted.toString())).ifPresent(
                            e -> problems.add(key + ": " + accepted + " is documented as allowed, but refused: " + e));
                }
                for (BigInteger refused : List.of(min.subtract(BigInteger.ONE), max.add(BigInteger.ONE))) {
                    if (loadError(Map.of(key, refused.toString())).isEmpty()) {
                        problems.add(key + ": " + refused + " is outside the documented '" + allowed + "', but accepted");
                    }
                }
            }
            for (String value : enumeratedValues(row.get(table.column("allowed")))) {
                loadError(Map.of(key, value)).ifPresent(
                        e -> problems.add(key + ": " + value + " is documented as allowed, but refused: " + e));
            }
        }
        assertThat(listed).as("the keys of the library-wide table").isEqualTo(librarySettingKeys());
        assertThat(problems).isEmpty();
    }

    @Test
    void theConfigurationReferenceListsEveryIdempotentMemberWithItsRealDefaultAndValues() throws Exception {
        Table table = docs.table("docs/configuration.md", "member");
        IdempotencyPolicy unconfigured = resolveProbe(Map.of());
        List<String> problems = new ArrayList<>();
        Set<String> listed = new TreeSet<>();
        for (List<String> row : table.rows) {
            String member = spans(row.get(0)).get(0);
            listed.add(member);
            Method annotationMember = Idempotent.class.getMethod(member);
            List<String> defaultValue = spans(row.get(table.column("default")));
            if (!defaultValue.isEmpty()) {
                String value = defaultValue.get(0).equals("\"\"") ? "" : defaultValue.get(0);
                String real = annotationMember.getDefaultValue() instanceof Enum<?> e ? e.name()
                        : String.valueOf(annotationMember.getDefaultValue());
                if (!value.equals(real)) {
                    problems.add(member + ": documented default '" + value + "', the annotation's is '" + real + "'");
                }
                if (!value.isEmpty() && !resolveProbe(Map.of("Idempotent/" + member, value)).equals(unconfigured)) {
                    problems.add(member + ": configured to its documented default " + value + ", the policy changes");
                }
            }
            String allowed = row.get(table.column("allowed"));
            for (String value : enumeratedValues(allowed)) {
                List<String> forms = allowed.contains("case-insensitive")
                        ? List.of(value, value.toLowerCase(Locale.ROOT)) : List.of(value);
                for (String form : forms) {
                    try {
                        resolveProbe(Map.of("Idempotent/" + member, form));
                    } catch (IdempotencyDefinitionException e) {
                        problems.add(member + ": " + form + " is documented as allowed, but refused: " + e.getMessage());
                    }
                }
            }
        }
        Set<String> members = Arrays.stream(Idempotent.class.getDeclaredMethods()).map(Method::getName)
                .collect(Collectors.toCollection(TreeSet::new));
        assertThat(listed).as("the members of the @Idempotent table").isEqualTo(members);
        assertThat(problems).isEmpty();
    }

    @Test
    void everyKeyTheModulesReadIsDocumented() {
        Set<String> shown = configExamples().stream().filter(e -> !e.negated)
                .flatMap(e -> e.entries.keySet().stream()).collect(Collectors.toSet());
        assertThat(code.keys).as("keys the published modules read, each shown in the docs")
                .allSatisfy(key -> assertThat(shown).contains(key));
    }

    // --- commands ----------------------------------------------------------------------------------

    @Test
    void everyMavenCommandNamesPhasesProfilesPropertiesModulesAndTestsThatExist() {
        List<String> problems = new ArrayList<>();
        int commands = 0;
        for (Command command : commands()) {
            if (command.words.get(0).equals("./mvnw")) {
                commands++;
                checkMaven(command, problems);
            } else if (command.words.get(0).startsWith("-D") || command.words.get(0).startsWith("-P")) {
                commands++;
                List<String> words = new ArrayList<>(command.words);
                words.add(0, "./mvnw");
                checkMaven(new Command(command.where, words), problems);
            }
        }
        assertThat(problems).isEmpty();
        assertThat(commands).as("Maven commands and flags shown").isPositive();
    }

    @Test
    void theQuickStartRunsWhatCiRunsAndTheDemoProfile() {
        Block quickStart = docs.blocks.stream()
                .filter(b -> b.page.name.equals("README.md") && SHELL_LANGUAGES.contains(b.lang)
                        && b.heading.equals("Quick start"))
                .findFirst().orElseThrow(() -> new AssertionError("README.md has no shell block under '## Quick start'"));
        List<String> shown = Shell.commands(quickStart.text).stream().map(w -> String.join(" ", w)).toList();
        List<String> ciRuns = Shell.commands(read(ROOT.resolve(".ci/run"))).stream()
                .filter(w -> w.get(0).equals("./mvnw")).map(w -> String.join(" ", w)).toList();

        assertThat(ciRuns).as(".ci/run's Maven commands").isNotEmpty();
        assertThat(shown).as("the Quick start shows what .ci/run runs").containsAll(ciRuns);
        for (String command : shown) {
            if (ciRuns.contains(command)) {
                continue;
            }
            Matcher profileRun = Pattern.compile("\\./mvnw -P([\\w.-]+) ([\\w-]+)").matcher(command);
            assertThat(profileRun.matches()).as(quickStart + ": '" + command + "' is neither .ci/run's command nor"
                    + " ./mvnw -P<profile> <phase>").isTrue();
            String profile = profileRun.group(1);
            String phase = profileRun.group(2);
            assertThat(code.poms.stream().anyMatch(pom -> pom.profilePhases(profile).contains(phase)))
                    .as(quickStart + ": '" + command + "': no pom's profile " + profile + " binds an execution to " + phase)
                    .isTrue();
        }
    }

    @Test
    void everyCurlCommandAgainstTheDemoHitsARouteOfTheSampleApp() {
        List<String> problems = new ArrayList<>();
        int curls = 0;
        for (Command command : commands()) {
            if (command.words.get(0).equals("curl")) {
                curls++;
                checkCurl(command, problems);
            }
        }
        for (Block block : docs.blocks) {
            if (SHELL_LANGUAGES.contains(block.lang)) {
                Matcher port = Pattern.compile("(?:localhost|127\\.0\\.0\\.1):(\\d+)").matcher(block.text);
                while (port.find()) {
                    if (!port.group(1).equals(code.demoPort)) {
                        problems.add(block + ": port " + port.group(1) + ", the demo listens on " + code.demoPort);
                    }
                }
            }
        }
        assertThat(problems).isEmpty();
        assertThat(curls).as("curl commands shown").isPositive();
    }

    @Test
    void everyScriptShownExistsAndReadsTheVariablesItIsGiven() {
        List<String> problems = new ArrayList<>();
        for (Command command : commands()) {
            List<String> words = command.words;
            int first = 0;
            while (first < words.size() && words.get(first).matches("[A-Z_][A-Z0-9_]*=.*")) {
                first++;
            }
            if (first == words.size()) {
                continue;
            }
            String program = words.get(first);
            if (program.equals("./mvnw") || program.equals("curl") || program.startsWith("-")
                    || SHELL_BUILTINS.contains(program)) {
                continue;
            }
            if (!program.contains("/")) {
                problems.add(command.where + ": '" + program + "', a command DocumentedExamplesTest has no rule for");
                continue;
            }
            Path script = ROOT.resolve(program).normalize();
            if (!Files.isRegularFile(script) || !Files.isExecutable(script)) {
                problems.add(command.where + ": " + program + " is no executable file of the repository");
                continue;
            }
            String text = read(script);
            for (String assignment : words.subList(0, first)) {
                String variable = assignment.substring(0, assignment.indexOf('='));
                if (!text.contains(variable)) {
                    problems.add(command.where + ": " + program + " does not read " + variable);
                }
            }
        }
        assertThat(problems).isEmpty();
    }

    // --- XML ---------------------------------------------------------------------------------------

    @Test
    void everyXmlBlockIsWellFormedAndNamesWhatExists() {
        List<String> problems = new ArrayList<>();
        Pom root = code.rootPom();
        for (Block block : blocks("xml")) {
            Element element;
            try {
                element = Xml.parse(block.text).getDocumentElement();
            } catch (RuntimeException e) {
                problems.add(block + ": not well-formed XML: " + e.getMessage());
                continue;
            }
            List<Element> dependencies = element.getTagName().equals("dependency") ? List.of(element)
                    : Xml.descendants(element, "dependency");
            for (Element dependency : dependencies) {
                problems.addAll(dependencyProblems(block, dependency, root));
            }
            switch (element.getTagName()) {
                case "persistence-unit" -> {
                    for (Element type : Xml.children(element, "class")) {
                        String name = type.getTextContent().strip();
                        if (name.startsWith("dev.idempotency.") && !code.libraryTypes.containsKey(name)) {
                            problems.add(block + ": " + name + " is no class of the published modules");
                        }
                    }
                }
                default -> {
                    // well-formed is all; the Infinispan cache definition has a test of its own
                }
            }
        }
        assertThat(problems).isEmpty();
        assertThat(blocks("xml")).isNotEmpty();
    }

    /** @return what is wrong with a {@code <dependency>} of a page: the module or BOM, groupId, version */
    private static List<String> dependencyProblems(Block block, Element dependency, Pom root) {
        List<String> problems = new ArrayList<>();
        String artifactId = Xml.text(dependency, "artifactId");
        String version = Xml.text(dependency, "version");
        Optional<Pom> bom = code.boms().stream().filter(p -> p.artifactId.equals(artifactId)).findFirst();
        Optional<Pom> module = code.poms.stream().filter(p -> p.published && p.artifactId.equals(artifactId)).findFirst();
        Optional<Pom> named = bom.isPresent() ? bom : module;
        if (named.isEmpty()) {
            problems.add(block + ": " + artifactId + " is no published module nor a BOM of the project");
            return problems;
        }
        if (!named.get().groupId.equals(Xml.text(dependency, "groupId"))) {
            problems.add(block + ": groupId " + Xml.text(dependency, "groupId") + ", the module's is " + named.get().groupId);
        }
        if (bom.isPresent()) {
            if (!root.version.equals(version)) {
                problems.add(block + ": the BOM at version " + version + ", the project's is " + root.version);
            }
            if (!"pom".equals(Xml.text(dependency, "type")) || !"import".equals(Xml.text(dependency, "scope"))) {
                problems.add(block + ": the BOM is imported with <type>pom</type> and <scope>import</scope>");
            }
            if (!(dependency.getParentNode().getParentNode() instanceof Element management)
                    || !management.getTagName().equals("dependencyManagement")) {
                problems.add(block + ": the BOM import belongs in <dependencyManagement><dependencies>");
            }
        } else if (version == null) {
            String type = Optional.ofNullable(Xml.text(dependency, "type")).orElse("jar");
            boolean managed = code.boms().stream().anyMatch(b -> b.managed.stream().anyMatch(
                    m -> m.artifactId().equals(artifactId) && m.type().equals(type))
                    && docs.blocks.stream().anyMatch(other -> other.page.name.equals(block.page.name) && other.lang.equals("xml")
                            && other.text.contains("<artifactId>" + b.artifactId + "</artifactId>")));
            if (!managed) {
                problems.add(block + ": " + artifactId + " without a version, but no BOM that manages it is imported"
                        + " on " + block.page.name);
            }
        } else if (!root.version.equals(version)) {
            problems.add(block + ": version " + version + ", the project's is " + root.version);
        }
        return problems;
    }

    @Test
    void theBomManagesThePublishedModulesAndInheritsNothing() {
        Pom root = code.rootPom();
        Set<String> published = code.poms.stream().filter(p -> p.published).map(p -> p.artifactId)
                .collect(Collectors.toCollection(TreeSet::new));
        assertThat(code.boms()).as("the project's BOM (a pom of managed dev.idempotency artifacts only)").hasSize(1);
        Pom bom = code.boms().get(0);
        assertThat(bom.inherits).as(bom.dir + ": a BOM with a parent hands the parent's dependencyManagement"
                + " (JUnit, Arquillian, the Jakarta EE API, ...) to every build that imports it").isFalse();
        assertThat(bom.version).as(bom.dir + ": the BOM's version, written there, not inherited").isEqualTo(root.version);
        assertThat(root.modules).as("the root pom's modules").contains(ROOT.relativize(bom.dir).toString());
        List<String> problems = new ArrayList<>();
        for (Managed managed : bom.managed) {
            if (!published.contains(managed.artifactId()) || !managed.version().equals("${project.version}")) {
                problems.add(managed + ": the BOM manages the published modules, at ${project.version}");
            }
        }
        assertThat(problems).isEmpty();
        Set<String> modules = bom.managed.stream().filter(m -> m.type().equals("jar")).map(Managed::artifactId)
                .collect(Collectors.toCollection(TreeSet::new));
        assertThat(modules).as(bom.dir + ": the modules the BOM manages").isEqualTo(published);
    }

    @Test
    void theInfinispanCacheDefinitionShownIsTheStoresDefault() {
        String source = read(ROOT.resolve(
                "infinispan-store/src/main/java/dev/idempotency/infinispan/InfinispanSettings.java"));
        Matcher method = Pattern.compile("static String defaultCacheConfiguration\\(long (\\w+)\\) \\{(.*?)\\n    }",
                Pattern.DOTALL).matcher(source);
        Matcher bound = Pattern.compile("DEFAULT_MAX_ENTRIES = ([\\d_]+)L?;").matcher(source);
        Matcher name = Pattern.compile("get\\(CACHE\\)[^;]*?orElse\\(\"([^\"]+)\"\\)").matcher(source);
        assertThat(method.find() && bound.find() && name.find())
                .as("InfinispanSettings' defaultCacheConfiguration, DEFAULT_MAX_ENTRIES and default cache name, as"
                        + " this test reads them: update the test if their shape changed")
                .isTrue();
        String maxEntries = bound.group(1).replace("_", "");
        StringBuilder defaultXml = new StringBuilder();
        Matcher piece = Pattern.compile("\"((?:[^\"\\\\]|\\\\.)*)\"|\\b" + method.group(1) + "\\b").matcher(method.group(2));
        while (piece.find()) {
            defaultXml.append(piece.group(1) == null ? maxEntries : piece.group(1).replace("\\\"", "\""));
        }
        Element expected = Xml.parse(defaultXml.toString()).getDocumentElement();

        List<Block> definitions = blocks("xml").stream().filter(b -> b.text.contains("<distributed-cache")).toList();
        assertThat(definitions).as("Infinispan cache definitions in the docs").isNotEmpty();
        for (Block block : definitions) {
            Element cache = (Element) Xml.parse(block.text).getElementsByTagName("distributed-cache").item(0);
            assertThat(cache.getAttribute("name")).as(block + ": the cache's name").isEqualTo(name.group(1));
            cache.removeAttribute("name");
            assertThat(Xml.same(cache, expected)).as(block + ": the definition is the store's default, "
                    + defaultXml).isTrue();
        }
        Table settings = docs.table("docs/stores/infinispan.md", "key");
        Map<String, String> documented = new LinkedHashMap<>();
        for (List<String> row : settings.rows) {
            documented.put(unquote(spans(row.get(0)).get(0)), spans(row.get(settings.column("default"))).get(0));
        }
        assertThat(documented).containsEntry("idempotency.infinispan.cache", name.group(1))
                .containsEntry("idempotency.infinispan.max-entries", maxEntries);
        assertThat(Xml.same(Xml.parse(documented.get("idempotency.infinispan.cache-configuration")).getDocumentElement(),
                expected)).as("docs/stores/infinispan.md: the default cache-configuration is " + defaultXml).isTrue();
    }

    // --- illustrative blocks -----------------------------------------------------------------------

    @Test
    void everyJsonBlockIsWellFormedAndItsProblemIsTheOneTheLibrarySends() {
        List<String> problems = new ArrayList<>();
        for (Block block : blocks("json")) {
            JsonObject json;
            try (JsonReader reader = Json.createReader(new StringReader(block.text))) {
                json = reader.readObject();
            } catch (RuntimeException e) {
                problems.add(block + ": not a JSON object: " + e.getMessage());
                continue;
            }
            String type = json.getString("type", "");
            if (!type.startsWith(IdempotencyProblem.TYPE_BASE)) {
                continue;
            }
            Optional<IdempotencyProblem> problem = Arrays.stream(IdempotencyProblem.values())
                    .filter(p -> p.type().toString().equals(type)).findFirst();
            if (problem.isEmpty()) {
                problems.add(block + ": " + type + " is no problem type of the library");
                continue;
            }
            if (json.containsKey("status") && json.getInt("status") != problem.get().status()) {
                problems.add(block + ": status " + json.getInt("status") + ", the library's is " + problem.get().status());
            }
            if (json.containsKey("title") && !json.getString("title").equals(problem.get().title())) {
                problems.add(block + ": title '" + json.getString("title") + "', the library's is '"
                        + problem.get().title() + "'");
            }
            if (json.containsKey("detail") && !code.librarySource.contains("\"" + json.getString("detail") + "\"")) {
                problems.add(block + ": the detail '" + json.getString("detail") + "' is no text of the library");
            }
        }
        assertThat(problems).isEmpty();
    }

    @Test
    void theDeploymentMessagesShownAreTheOnesTheResolverGives() {
        List<Block> samples = docs.blocks.stream().filter(DocumentedExamplesTest::isMessageSample).toList();
        List<String> problems = new ArrayList<>();
        for (Block block : samples) {
            String shown = block.text.strip().replaceAll("\\s+", " ");
            Matcher m = Pattern.compile("IDEMP\\d{4}: bean ([\\w.$]+), method (\\w+): ([\\w.$/]+)='([^']*)'")
                    .matcher(shown);
            if (!m.lookingAt()) {
                if (!code.librarySource.contains(shown.substring(0, 10))) {
                    problems.add(block + ": " + shown.substring(0, 9) + " is no message code of the library");
                }
                continue;
            }
            String bean = m.group(1);
            String method = m.group(2);
            String key = m.group(3).replace(bean + "/" + method + "/", Probe.class.getName() + "/run/")
                    .replace(bean + "/", Probe.class.getName() + "/");
            String message;
            try {
                resolveProbe(Map.of(key, m.group(4)));
                problems.add(block + ": " + key + "='" + m.group(4) + "' deploys without a message");
                continue;
            } catch (IdempotencyDefinitionException e) {
                message = e.getMessage().replace(Probe.class.getName() + "/run/", bean + "/" + method + "/")
                        .replace(Probe.class.getName(), bean).replace("method run:", "method " + method + ":");
            } catch (NoSuchMethodException e) {
                throw new AssertionError(e);
            }
            String prefix = shown.endsWith("...") ? shown.substring(0, shown.length() - 3) : shown;
            if (!message.startsWith(prefix)) {
                problems.add(block + ": the resolver's message is\n" + message);
            }
        }
        assertThat(problems).isEmpty();
        assertThat(samples).as("deployment message samples").isNotEmpty();
    }

    @Test
    void thePackageListingIsTheCoreModulesPackages() throws IOException {
        List<Block> listings = docs.blocks.stream().filter(DocumentedExamplesTest::isPackageListing).toList();
        Path sources = ROOT.resolve("cdi-extension/src/main/java");
        Set<String> packages;
        try (Stream<Path> files = Files.walk(sources)) {
            packages = files.filter(f -> f.toString().endsWith(".java") && !f.endsWith("package-info.java"))
                    .map(f -> sources.relativize(f.getParent()).toString().replace('/', '.'))
                    .collect(Collectors.toCollection(TreeSet::new));
        }
        assertThat(listings).as("package listings").isNotEmpty();
        for (Block block : listings) {
            Set<String> listed = block.text.lines().map(l -> l.split("\\s+")[0]).filter(p -> p.startsWith("dev."))
                    .collect(Collectors.toCollection(TreeSet::new));
            assertThat(listed).as(block + ": the packages of cdi-extension").isEqualTo(packages);
        }
    }

    @Test
    void theMetricSampleIsNamedAndTaggedAsTheCounterIs() throws Exception {
        Field field = Class.forName("dev.idempotency.cdi.MicroProfileMetricsCounters").getDeclaredField("NAME");
        field.setAccessible(true);
        String name = ((String) field.get(null)).replace('.', '_') + "_total";
        Set<String> outcomes = Arrays.stream(IdempotencyOutcome.values()).map(o -> o.name().toLowerCase(Locale.ROOT))
                .collect(Collectors.toSet());
        Pattern sample = Pattern.compile("(\\w+)\\{(.*)} [\\d.]+");
        List<String> problems = new ArrayList<>();
        int samples = 0;
        for (Block block : docs.blocks) {
            Matcher m = sample.matcher(block.text.strip());
            if (!block.lang.isEmpty() || !m.matches()) {
                continue;
            }
            samples++;
            if (!m.group(1).equals(name)) {
                problems.add(block + ": the counter is exported as " + name + ", not " + m.group(1));
            }
            Matcher tag = Pattern.compile("(\\w+)=\"([^\"]*)\"").matcher(m.group(2));
            while (tag.find()) {
                String value = tag.group(2);
                switch (tag.group(1)) {
                    case "outcome" -> {
                        if (!outcomes.contains(value)) {
                            problems.add(block + ": outcome " + value + " is none of " + outcomes);
                        }
                    }
                    case "endpoint" -> endpointProblem(value).ifPresent(p -> problems.add(block + ": " + p));
                    case "mp_scope" -> {
                        // the registry's own tag
                    }
                    default -> problems.add(block + ": the counter has no tag " + tag.group(1));
                }
            }
        }
        assertThat(problems).isEmpty();
        assertThat(samples).as("metric samples").isPositive();
    }

    @Test
    void theHttpExchangesShownUseTheSampleRoutesAndTheDefaultHeaders() {
        LibrarySettings defaults = LibrarySettings.load(key -> Optional.empty());
        Set<String> headers = Set.of(defaults.keyHeader(), defaults.replayedHeader());
        List<String> problems = new ArrayList<>();
        for (Block block : docs.blocks) {
            if (!block.lang.isEmpty()) {
                continue;
            }
            Matcher request = Pattern.compile("(?m)^(GET|POST|PUT|PATCH|DELETE) (/\\S*)").matcher(block.text);
            boolean exchange = false;
            while (request.find()) {
                exchange = true;
                if (!code.routes.serves(request.group(1), request.group(2))) {
                    problems.add(block + ": the sample app serves no " + request.group(1) + " " + request.group(2));
                }
            }
            Matcher header = Pattern.compile("\\b(Idempoten[\\w-]*):").matcher(block.text);
            while (exchange && header.find()) {
                if (!headers.contains(header.group(1))) {
                    problems.add(block + ": " + header.group(1) + " is neither default header " + headers);
                }
            }
        }
        assertThat(problems).isEmpty();
    }

    @Test
    void theJavaExamplesNameTypesMembersAndConstantsThatExist() {
        Set<String> members = Arrays.stream(Idempotent.class.getDeclaredMethods()).map(Method::getName)
                .collect(Collectors.toSet());
        List<String> problems = new ArrayList<>();
        for (Block block : blocks("java")) {
            Map<String, String> variables = new LinkedHashMap<>();
            Set<String> declared = new TreeSet<>();
            Matcher declaration = Pattern.compile("\\b(?:class|interface|record|enum) (\\w+)").matcher(block.text);
            while (declaration.find()) {
                declared.add(declaration.group(1));
            }
            Matcher type = Pattern.compile("\\b(Idempoten\\w*)\\b(?:\\s+(\\w+)\\s*[,;)=])?").matcher(block.text);
            while (type.find()) {
                String simpleName = type.group(1);
                if (declared.contains(simpleName)) {
                    continue;
                }
                if (code.typeSource(simpleName).isEmpty()) {
                    problems.add(block + ": " + simpleName + " is no type of the published modules");
                } else if (type.group(2) != null) {
                    variables.put(type.group(2), simpleName);
                }
            }
            Matcher constant = Pattern.compile("\\b(Idempoten\\w*)\\.([A-Z][A-Z_]+)\\b").matcher(block.text);
            while (constant.find()) {
                if (!code.typeSource(constant.group(1)).orElse("").matches("(?s).*\\b" + constant.group(2) + "\\b.*")) {
                    problems.add(block + ": " + constant.group(1) + " has no " + constant.group(2));
                }
            }
            Matcher call = Pattern.compile("\\b(\\w+)\\.(\\w+)\\(").matcher(block.text);
            while (call.find()) {
                String owner = variables.get(call.group(1));
                if (owner != null && !code.typeSource(owner).orElse("")
                        .matches("(?s).*\\b" + call.group(2) + "\\s*[(,)].*")) {
                    problems.add(block + ": " + owner + " has no " + call.group(2) + "()");
                }
            }
            Matcher annotation = Pattern.compile("@Idempotent\\(([^)]*)\\)").matcher(block.text);
            while (annotation.find()) {
                Matcher member = Pattern.compile("(\\w+)\\s*=").matcher(annotation.group(1));
                while (member.find()) {
                    if (!members.contains(member.group(1))) {
                        problems.add(block + ": @Idempotent has no member " + member.group(1));
                    }
                }
            }
        }
        assertThat(problems).isEmpty();
        assertThat(blocks("java")).isNotEmpty();
    }

    // --- configuration helpers ---------------------------------------------------------------------

    /** A configuration shown: a properties block or a key (=value) in backticks. */
    private record ConfigExample(String where, Map<String, String> entries, boolean negated) {
    }

    private static List<ConfigExample> configExamples() {
        List<ConfigExample> examples = new ArrayList<>();
        for (Block block : docs.blocks) {
            if (CONFIG_LANGUAGES.contains(block.lang)) {
                Properties properties = new Properties();
                try {
                    properties.load(new StringReader(block.text));
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
                Map<String, String> entries = new LinkedHashMap<>();
                properties.stringPropertyNames().stream().sorted().forEach(k -> entries.put(k, properties.getProperty(k)));
                examples.add(new ConfigExample(block.toString(), entries, false));
            }
        }
        Set<String> members = Arrays.stream(Idempotent.class.getDeclaredMethods()).map(Method::getName)
                .collect(Collectors.toSet());
        Pattern libraryKey = Pattern.compile("(idempotency\\.[\\w.*\"<>-]+)(?:=(\\S+))?");
        Pattern override = Pattern.compile("((?:[\\w.$]+/){0,2}Idempotent/\\w+)=(\\S+)");
        Pattern member = Pattern.compile("(\\w+)=(\\S+)");
        for (Span span : docs.spans) {
            Matcher m;
            if ((m = libraryKey.matcher(span.text)).matches()) {
                Map<String, String> entry = new LinkedHashMap<>();
                entry.put(m.group(1), m.group(2));
                examples.add(new ConfigExample(span.toString(), entry, span.before.matches("(?s).*\\bno\\s*$")));
            } else if ((m = override.matcher(span.text)).matches()) {
                examples.add(new ConfigExample(span.toString(), Map.of(m.group(1), m.group(2)), false));
            } else if ((m = member.matcher(span.text)).matches() && members.contains(m.group(1))) {
                examples.add(new ConfigExample(span.toString(), Map.of("Idempotent/" + m.group(1), m.group(2)), false));
            }
        }
        return examples;
    }

    private static boolean isReadKey(String key) {
        if (code.keys.contains(key) || code.passThroughPrefixes.stream().anyMatch(key::startsWith)) {
            return true;
        }
        if (key.endsWith(".*")) {
            String prefix = key.substring(0, key.length() - 1);
            return code.keys.stream().anyMatch(k -> k.startsWith(prefix));
        }
        Matcher m = Pattern.compile("(?:[\\w.$]+/){0,2}Idempotent/(\\w+)").matcher(key);
        return m.matches() && Arrays.stream(Idempotent.class.getDeclaredMethods()).anyMatch(
                method -> method.getName().equals(m.group(1)));
    }

    /** @return the key moved onto {@link Probe#run()}, when it is an {@code @Idempotent} override */
    private static Optional<String> overrideOnProbe(String key) {
        Matcher onMethod = Pattern.compile("[\\w.$]+/\\w+/(Idempotent/\\w+)").matcher(key);
        if (onMethod.matches()) {
            return Optional.of(Probe.class.getName() + "/run/" + onMethod.group(1));
        }
        Matcher onClass = Pattern.compile("[\\w.$]+/(Idempotent/\\w+)").matcher(key);
        if (onClass.matches()) {
            return Optional.of(Probe.class.getName() + "/" + onClass.group(1));
        }
        return key.matches("Idempotent/\\w+") ? Optional.of(key) : Optional.empty();
    }

    private static Set<String> librarySettingKeys() {
        Set<String> keys = new TreeSet<>();
        for (Field field : LibrarySettings.class.getFields()) {
            if (Modifier.isStatic(field.getModifiers()) && field.getType() == String.class) {
                try {
                    String value = (String) field.get(null);
                    if (value.startsWith("idempotency.")) {
                        keys.add(value);
                    }
                } catch (IllegalAccessException e) {
                    throw new AssertionError(e);
                }
            }
        }
        return keys;
    }

    /** A MicroProfile Config of these values only: no system properties, no environment. */
    private static Config config(Map<String, String> values) {
        return new SmallRyeConfigBuilder()
                .withSources(new PropertiesConfigSource(values, "documented example", 100))
                .build();
    }

    private static Optional<String> loadError(Map<String, String> values) {
        try {
            LibrarySettings.load(ConfigLookup.of(config(values)));
            return Optional.empty();
        } catch (IdempotencyDefinitionException e) {
            return Optional.of(e.getMessage());
        }
    }

    /** The resource method the overrides shown are moved onto: a POST, so that every member applies. */
    static class Probe {
        @POST
        @Idempotent
        public void run() {
        }
    }

    private static IdempotencyPolicy resolveProbe(Map<String, String> values) throws NoSuchMethodException {
        return new PolicyResolver(ConfigLookup.of(config(values))).resolve(Probe.class, Probe.class.getMethod("run"));
    }

    /** @return the values of a cell that lists nothing but values: {@code `a`, `b` (note)} */
    private static List<String> enumeratedValues(String cell) {
        String text = cell.strip();
        if (!text.matches("`[^`]+`(, `[^`]+`)*( \\([^)]*\\))?")) {
            return List.of();
        }
        return spans(text);
    }

    private static List<String> spans(String text) {
        List<String> spans = new ArrayList<>();
        Matcher m = Docs.SPAN.matcher(text);
        while (m.find()) {
            spans.add(m.group(2).strip());
        }
        return spans;
    }

    private static String unquote(String key) {
        return key.replace("\"", "");
    }

    private static Optional<String> endpointProblem(String endpoint) {
        if (!endpoint.contains("#")) {
            return Optional.empty();
        }
        Matcher derived = Pattern.compile("([\\w.$]+)#(\\w+)\\(([\\w.$,\\[\\]]*)\\)").matcher(endpoint);
        if (!derived.matches()) {
            return Optional.of("endpoint " + endpoint + " is no derived identity (class#method(parameter types))"
                    + " nor a name");
        }
        Optional<String> source = code.anySource(derived.group(1));
        if (source.isEmpty()) {
            return Optional.of("endpoint " + endpoint + ": no class " + derived.group(1) + " in the sources");
        }
        List<String> types = derived.group(3).isEmpty() ? List.of()
                : Arrays.stream(derived.group(3).split(",")).map(t -> t.substring(t.lastIndexOf('.') + 1)).toList();
        Matcher declared = Pattern.compile("\\b" + derived.group(2) + "\\(([^)]*)\\)").matcher(source.get());
        while (declared.find()) {
            List<String> parameters = declared.group(1).isBlank() ? List.of() : Arrays.stream(declared.group(1).split(","))
                    .map(p -> p.strip().replaceAll("@\\w+(\\([^)]*\\))?\\s*", "").split("\\s+")[0]).toList();
            if (parameters.equals(types)) {
                return Optional.empty();
            }
        }
        return Optional.of("endpoint " + endpoint + ": " + derived.group(1) + " has no " + derived.group(2)
                + " with parameters " + types);
    }

    // --- command helpers ---------------------------------------------------------------------------

    private record Command(String where, List<String> words) {
    }

    /** The commands of the shell blocks, and those in backticks in the text. */
    private static List<Command> commands() {
        List<Command> commands = new ArrayList<>();
        for (Block block : docs.blocks) {
            if (SHELL_LANGUAGES.contains(block.lang)) {
                for (List<String> words : Shell.commands(block.text)) {
                    commands.add(new Command(block.toString(), words));
                }
            }
        }
        for (Span span : docs.spans) {
            if (span.text.matches("(\\./|-D[\\w.]|-P\\w).*") || span.text.matches("[\\w.-]+(/[\\w.-]+)*/run")) {
                for (List<String> words : Shell.commands(span.text)) {
                    commands.add(new Command(span.toString(), words));
                }
            }
        }
        return commands;
    }

    private static void checkMaven(Command command, List<String> problems) {
        List<String> words = command.words;
        List<String> modules = new ArrayList<>();
        List<String> tests = new ArrayList<>();
        for (int i = 1; i < words.size(); i++) {
            String word = words.get(i);
            if (word.equals("-P") || word.equals("-pl") || word.equals("--projects") || word.equals("-T")) {
                if (i + 1 == words.size()) {
                    problems.add(command.where + ": " + word + " without its argument");
                    break;
                }
                String argument = words.get(++i);
                if (word.equals("-P")) {
                    checkProfiles(command, argument, problems);
                } else if (!word.equals("-T")) {
                    modules.addAll(List.of(argument.split(",")));
                }
            } else if (word.startsWith("-P")) {
                checkProfiles(command, word.substring(2), problems);
            } else if (word.startsWith("-D")) {
                String property = word.substring(2).split("=", 2)[0];
                if (!code.isKnownProperty(property)) {
                    problems.add(command.where + ": -D" + property + " is read by no pom, source or script");
                }
                if (property.equals("test") && word.contains("=")) {
                    tests.addAll(List.of(word.substring(word.indexOf('=') + 1).split(",")));
                }
            } else if (word.startsWith("-")) {
                if (!MAVEN_FLAGS.contains(word)) {
                    problems.add(command.where + ": " + word + " is no Maven option DocumentedExamplesTest knows");
                }
            } else if (!MAVEN_PHASES.contains(word) && !word.contains(":")) {
                problems.add(command.where + ": " + word + " is no lifecycle phase nor plugin goal");
            }
        }
        List<Path> moduleDirs = new ArrayList<>();
        for (String module : modules) {
            Optional<Pom> pom = code.poms.stream().filter(p -> module.startsWith(":")
                    ? p.artifactId.equals(module.substring(1)) : p.dir.equals(ROOT.resolve(module).normalize()))
                    .findFirst();
            if (pom.isEmpty()) {
                problems.add(command.where + ": -pl " + module + " is no module");
            } else {
                moduleDirs.add(pom.get().dir);
            }
        }
        if (moduleDirs.isEmpty()) {
            moduleDirs.add(ROOT);
        }
        for (String test : tests) {
            String pattern = test.replace("!", "").split("#")[0];
            Pattern glob = Pattern.compile(Arrays.stream(pattern.split("\\*", -1)).map(Pattern::quote)
                    .collect(Collectors.joining(".*")));
            boolean found = moduleDirs.stream().flatMap(DocumentedExamplesTest::testClassNames)
                    .anyMatch(name -> glob.matcher(name).matches());
            if (!found && !pattern.equals("NONE")) {
                problems.add(command.where + ": -Dtest=" + test + " matches no test class of " + modules);
            }
        }
    }

    private static void checkProfiles(Command command, String list, List<String> problems) {
        for (String profile : list.split(",")) {
            String id = profile.replaceFirst("^[!+-]", "");
            if (code.poms.stream().noneMatch(pom -> pom.profiles.contains(id))) {
                problems.add(command.where + ": -P" + id + " is a profile of no pom");
            }
        }
    }

    private static Stream<String> testClassNames(Path module) {
        return Code.files(module).stream()
                .filter(f -> f.toString().contains("/src/test/java/") && f.toString().endsWith(".java"))
                .map(f -> f.getFileName().toString().replace(".java", ""));
    }

    private static void checkCurl(Command command, List<String> problems) {
        List<String> words = command.words;
        String method = null;
        String url = null;
        String body = null;
        String user = null;
        List<String> headers = new ArrayList<>();
        for (int i = 1; i < words.size(); i++) {
            String word = words.get(i);
            switch (word) {
                case "-X" -> method = words.get(++i);
                case "-H" -> headers.add(words.get(++i));
                case "-d", "--data" -> body = words.get(++i);
                case "-u" -> user = words.get(++i);
                case "-o", "-w" -> i++;
                case "-i", "-s", "-S", "-f", "-v" -> {
                }
                default -> {
                    if (word.startsWith("-")) {
                        problems.add(command.where + ": curl " + word + ", an option DocumentedExamplesTest has no rule for");
                    } else {
                        url = word;
                    }
                }
            }
        }
        if (url == null) {
            problems.add(command.where + ": curl without a URL");
            return;
        }
        Matcher parts = Pattern.compile("(?:https?://)?([\\w.-]+)(?::(\\d+))?(/[^?#]*)?.*").matcher(url);
        if (!parts.matches()) {
            problems.add(command.where + ": curl " + url + " is no URL");
            return;
        }
        String host = parts.group(1);
        if (host.endsWith(".example")) {
            return;
        }
        if (!host.equals("localhost") && !host.equals("127.0.0.1")) {
            problems.add(command.where + ": curl " + url + ": neither the demo (localhost) nor an illustrative .example host");
            return;
        }
        String verb = method != null ? method : body != null ? "POST" : "GET";
        String path = parts.group(3) == null ? "/" : parts.group(3);
        if (!code.routes.serves(verb, path)) {
            problems.add(command.where + ": the sample app serves no " + verb + " " + path + " (routes: " + code.routes + ")");
        }
        if (!code.demoPort.equals(parts.group(2))) {
            problems.add(command.where + ": curl " + url + ": the demo listens on port " + code.demoPort);
        }
        if (body != null) {
            try (JsonReader reader = Json.createReader(new StringReader(body))) {
                for (String field : reader.readObject().keySet()) {
                    if (!code.requestFields.contains(field)) {
                        problems.add(command.where + ": the sample's requests have no field " + field
                                + " (fields: " + code.requestFields + ")");
                    }
                }
            } catch (RuntimeException e) {
                problems.add(command.where + ": the body " + body + " is no JSON object: " + e.getMessage());
            }
        }
        if (user != null && !code.demoUsers.contains(user)) {
            problems.add(command.where + ": -u " + user + " is no demo user of the sample (" + code.demoUsers + ")");
        }
        String keyHeader = LibrarySettings.load(key -> Optional.empty()).keyHeader();
        for (String header : headers) {
            String name = header.split(":", 2)[0].strip();
            if (name.toLowerCase(Locale.ROOT).contains("idempoten") && !name.equals(keyHeader)) {
                problems.add(command.where + ": header " + name + ", the key header is " + keyHeader);
            }
        }
    }

    private static List<Block> blocks(String lang) {
        return docs.blocks.stream().filter(b -> b.lang.equals(lang)).toList();
    }

    private static boolean isPackageListing(Block block) {
        return block.lang.isEmpty() && block.text.strip().startsWith("dev.idempotency")
                && block.text.lines().allMatch(l -> l.isBlank() || l.startsWith("dev.idempotency") || l.startsWith(" "));
    }

    private static boolean isMessageSample(Block block) {
        return block.lang.isEmpty() && block.text.strip().matches("(?s)IDEMP\\d{4}: .*");
    }

    static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    // --- the docs ----------------------------------------------------------------------------------

    private record Page(Path file, String name, List<String> lines) {
    }

    /** A fenced block; {@code line} is its opening fence's, {@code heading} the section's title. */
    private record Block(Page page, int line, String lang, String text, String heading) {
        @Override
        public String toString() {
            return page.name + ":" + line + " (```" + lang + ")";
        }
    }

    /** Text in backticks outside the blocks; {@code before} is the text before it in its paragraph. */
    private record Span(Page page, int line, String text, String before) {
        @Override
        public String toString() {
            return page.name + ":" + line + " `" + text + "`";
        }
    }

    /** A markdown table: its header and rows of cells. */
    private record Table(List<String> header, List<List<String>> rows) {
        int column(String name) {
            int index = header.indexOf(name);
            assertThat(index).as("table column " + name + " in " + header).isNotNegative();
            return index;
        }
    }

    private static final class Docs {
        static final Pattern FENCE = Pattern.compile("^(\\s*)(`{3,}|~{3,})\\s*([\\w-]*).*$");
        static final Pattern SPAN = Pattern.compile("(?<!`)(`+)(?!`)(.+?)(?<!`)\\1(?!`)");

        final List<Page> pages = new ArrayList<>();
        final List<Block> blocks = new ArrayList<>();
        final List<Span> spans = new ArrayList<>();

        static Docs read(Path root) throws IOException {
            Docs docs = new Docs();
            List<Path> files = new ArrayList<>(List.of(root.resolve("README.md"), root.resolve("BENCHMARKS.md")));
            try (Stream<Path> tree = Files.walk(root.resolve("docs"))) {
                tree.filter(f -> f.toString().endsWith(".md")).sorted().forEach(files::add);
            }
            for (Path file : files) {
                if (Files.isRegularFile(file)) {
                    Page page = new Page(file, root.relativize(file).toString(), Files.readAllLines(file));
                    docs.pages.add(page);
                    docs.parse(page);
                }
            }
            return docs;
        }

        private void parse(Page page) {
            List<String> lines = page.lines;
            String heading = "";
            Paragraph paragraph = new Paragraph();
            for (int i = 0; i < lines.size(); i++) {
                String line = lines.get(i);
                Matcher fence = FENCE.matcher(line);
                if (fence.matches()) {
                    flush(page, paragraph);
                    String indent = fence.group(1);
                    String marker = fence.group(2);
                    StringBuilder text = new StringBuilder();
                    int open = i;
                    for (i++; i < lines.size() && !lines.get(i).strip().matches(Pattern.quote(marker.substring(0, 1))
                            + "{" + marker.length() + ",}"); i++) {
                        String content = lines.get(i);
                        text.append(content.startsWith(indent) ? content.substring(indent.length()) : content.strip())
                                .append('\n');
                    }
                    blocks.add(new Block(page, open + 1, fence.group(3).toLowerCase(Locale.ROOT), text.toString(), heading));
                    continue;
                }
                if (line.startsWith("#")) {
                    heading = line.replaceFirst("^#+\\s*", "").strip();
                }
                if (line.isBlank() || line.startsWith("|") || line.startsWith("#")) {
                    flush(page, paragraph);
                    if (!line.isBlank()) {
                        paragraph.add(line, i + 1);
                        flush(page, paragraph);
                    }
                    continue;
                }
                paragraph.add(line.strip(), i + 1);
            }
            flush(page, paragraph);
        }

        /** The lines of a paragraph, joined by spaces, and where each starts. */
        private static final class Paragraph {
            final StringBuilder text = new StringBuilder();
            final List<int[]> starts = new ArrayList<>();

            void add(String line, int number) {
                if (text.length() > 0) {
                    text.append(' ');
                }
                starts.add(new int[] {text.length(), number});
                text.append(line);
            }

            int lineAt(int offset) {
                int number = 0;
                for (int[] start : starts) {
                    if (start[0] <= offset) {
                        number = start[1];
                    }
                }
                return number;
            }
        }

        private void flush(Page page, Paragraph paragraph) {
            String text = paragraph.text.toString();
            Matcher span = SPAN.matcher(text);
            while (span.find()) {
                spans.add(new Span(page, paragraph.lineAt(span.start()), span.group(2).strip(),
                        text.substring(0, span.start())));
            }
            paragraph.text.setLength(0);
            paragraph.starts.clear();
        }

        /** @return the first table of the page whose first header cell is {@code firstColumn} */
        Table table(String pageName, String firstColumn) {
            Page page = pages.stream().filter(p -> p.name.equals(pageName)).findFirst()
                    .orElseThrow(() -> new AssertionError("no page " + pageName));
            List<String> lines = page.lines;
            for (int i = 0; i + 1 < lines.size(); i++) {
                List<String> header = cells(lines.get(i));
                if (!header.isEmpty() && header.get(0).equals(firstColumn) && lines.get(i + 1).startsWith("|---")) {
                    List<List<String>> rows = new ArrayList<>();
                    for (int j = i + 2; j < lines.size() && lines.get(j).startsWith("|"); j++) {
                        rows.add(cells(lines.get(j)));
                    }
                    return new Table(header, rows);
                }
            }
            throw new AssertionError(pageName + " has no table whose first column is '" + firstColumn + "'");
        }

        /** Splits a table row at the pipes outside backticks. */
        static List<String> cells(String row) {
            if (!row.startsWith("|")) {
                return List.of();
            }
            List<String> cells = new ArrayList<>();
            StringBuilder cell = new StringBuilder();
            boolean code = false;
            for (int i = 1; i < row.length(); i++) {
                char c = row.charAt(i);
                if (c == '`') {
                    code = !code;
                }
                if (c == '|' && !code && row.charAt(i - 1) != '\\') {
                    cells.add(cell.toString().strip());
                    cell.setLength(0);
                } else {
                    cell.append(c);
                }
            }
            return cells;
        }
    }

    // --- the code, the poms and the scripts ----------------------------------------------------------

    private record Pom(Path dir, String text, String groupId, String artifactId, String version, boolean published,
            Set<String> profiles, Set<String> properties, Map<String, Set<String>> phasesByProfile, String packaging,
            boolean inherits, List<String> modules, List<Managed> managed) {

        /** @return whether it is a BOM: a pom of no modules whose dependencyManagement is the project's artifacts */
        boolean isBom() {
            return packaging.equals("pom") && modules.isEmpty() && !managed.isEmpty()
                    && !text.contains("<maven.deploy.skip>true</maven.deploy.skip>")
                    && managed.stream().allMatch(m -> m.groupId().equals(groupId));
        }

        Set<String> profilePhases(String profile) {
            return phasesByProfile.getOrDefault(profile, Set.of());
        }

        static Pom read(Path file) {
            String text = DocumentedExamplesTest.read(file);
            Element project = Xml.parse(text).getDocumentElement();
            Element parent = Xml.child(project, "parent");
            String groupId = Optional.ofNullable(Xml.text(project, "groupId")).orElse(Xml.text(parent, "groupId"));
            String version = Optional.ofNullable(Xml.text(project, "version")).orElse(Xml.text(parent, "version"));
            String packaging = Optional.ofNullable(Xml.text(project, "packaging")).orElse("jar");
            Set<String> properties = new TreeSet<>();
            for (Element block : Xml.descendants(project, "properties")) {
                Xml.children(block, null).forEach(p -> properties.add(p.getTagName()));
            }
            for (Element activation : Xml.descendants(project, "activation")) {
                for (Element property : Xml.children(activation, "property")) {
                    properties.add(Xml.text(property, "name").replaceFirst("^!", ""));
                }
            }
            Matcher reference = Pattern.compile("\\$\\{([\\w.-]+)}").matcher(text);
            while (reference.find()) {
                properties.add(reference.group(1));
            }
            Set<String> profiles = new TreeSet<>();
            Map<String, Set<String>> phases = new LinkedHashMap<>();
            for (Element profile : Xml.descendants(project, "profile")) {
                String id = Xml.text(profile, "id");
                profiles.add(id);
                Set<String> bound = new TreeSet<>();
                for (Element execution : Xml.descendants(profile, "execution")) {
                    Optional.ofNullable(Xml.text(execution, "phase")).ifPresent(bound::add);
                }
                phases.put(id, bound);
            }
            boolean published = packaging.equals("jar") && !text.contains("<maven.deploy.skip>true</maven.deploy.skip>");
            List<String> modules = new ArrayList<>();
            Optional.ofNullable(Xml.child(project, "modules")).ifPresent(
                    m -> Xml.children(m, "module").forEach(module -> modules.add(module.getTextContent().strip())));
            List<Managed> managed = new ArrayList<>();
            Element management = Xml.child(Xml.child(project, "dependencyManagement"), "dependencies");
            if (management != null) {
                for (Element dependency : Xml.children(management, "dependency")) {
                    managed.add(new Managed(Xml.text(dependency, "groupId"), Xml.text(dependency, "artifactId"),
                            Xml.text(dependency, "version"),
                            Optional.ofNullable(Xml.text(dependency, "type")).orElse("jar")));
                }
            }
            return new Pom(file.getParent(), text, groupId, Xml.text(project, "artifactId"), version, published,
                    profiles, properties, phases, packaging, parent != null, modules, managed);
        }
    }

    /** An entry of a pom's own {@code <dependencyManagement>}, as written (properties not resolved). */
    private record Managed(String groupId, String artifactId, String version, String type) {
    }

    /** The sample app's routes, {@code METHOD /path/{template}}. */
    private record Routes(Set<String> routes) {
        boolean serves(String method, String path) {
            String[] asked = path.replaceAll("/+$", "").split("/");
            return routes.stream().anyMatch(route -> {
                String[] parts = route.split(" ", 2);
                String[] template = parts[1].split("/");
                if (!parts[0].equals(method) || template.length != asked.length) {
                    return false;
                }
                for (int i = 0; i < template.length; i++) {
                    boolean variable = template[i].startsWith("{");
                    if (!variable && !template[i].equals(asked[i]) || variable && asked[i].isEmpty()) {
                        return false;
                    }
                }
                return true;
            });
        }

        @Override
        public String toString() {
            return routes.toString();
        }
    }

    private static final class Code {
        List<Pom> poms;
        /** The {@code idempotency.*} strings of the published modules' main sources. */
        Set<String> keys = new TreeSet<>();
        Set<String> passThroughPrefixes = new TreeSet<>();
        /** The published modules' main types, by fully qualified name, with their source. */
        Map<String, String> libraryTypes = new LinkedHashMap<>();
        String librarySource;
        /** Every Java source of the repository, by fully qualified name. */
        Map<String, String> allTypes = new LinkedHashMap<>();
        /** The sample app's sources (integration-tests' main), by fully qualified name. */
        Map<String, String> sampleTypes = new LinkedHashMap<>();
        Set<String> javaStrings = new TreeSet<>();
        List<String> scripts = new ArrayList<>();
        Routes routes;
        Set<String> requestFields = new TreeSet<>();
        Set<String> demoUsers = new TreeSet<>();
        String demoPort;

        /** @return the body of the library's resource class the declaration extends, or "" */
        String inheritedResource(String declaration) {
            Matcher parent = Pattern.compile("^public class \\w+ extends (\\w+)").matcher(declaration);
            if (!parent.find()) {
                return "";
            }
            return libraryTypes.entrySet().stream().filter(type -> type.getKey().endsWith("." + parent.group(1)))
                    .map(type -> type.getValue().substring(Math.max(0, type.getValue().indexOf("public abstract class "))))
                    .map(text -> text.lines().skip(1).reduce("\n", (all, line) -> all + line + "\n")).findFirst().orElse("");
        }

        static Code read(Path root) throws IOException {
            Code code = new Code();
            List<Path> files = files(root);
            code.poms = files.stream().filter(f -> f.getFileName().toString().equals("pom.xml")).map(Pom::read).toList();
            List<Path> javaFiles = files.stream().filter(f -> f.toString().endsWith(".java")).toList();
            Pattern string = Pattern.compile("\"([\\w.-]+)\"");
            for (Path file : javaFiles) {
                String text = DocumentedExamplesTest.read(file);
                String fqcn = fqcn(file, text);
                code.allTypes.put(fqcn, text);
                if (file.startsWith(root.resolve("integration-tests/src/main/java"))) {
                    code.sampleTypes.put(fqcn, text);
                }
                Matcher literal = string.matcher(text);
                while (literal.find()) {
                    code.javaStrings.add(literal.group(1));
                }
                boolean library = code.poms.stream().anyMatch(p -> p.published
                        && file.startsWith(p.dir.resolve("src/main/java")));
                if (library) {
                    code.libraryTypes.put(fqcn, text);
                    Matcher key = Pattern.compile("\"(idempotency\\.[a-z0-9][a-z0-9.-]*[a-z0-9])\"").matcher(text);
                    while (key.find()) {
                        code.keys.add(key.group(1));
                    }
                    Matcher prefix = Pattern.compile("PREFIX\\s*=\\s*\"([\\w.-]+\\.)\"").matcher(text);
                    while (prefix.find()) {
                        code.passThroughPrefixes.add(prefix.group(1));
                    }
                }
            }
            code.librarySource = String.join("\n", code.libraryTypes.values());
            files.stream().filter(f -> root.relativize(f).getNameCount() <= 2 && Files.isExecutable(f)
                    && !f.getFileName().toString().startsWith("mvnw"))
                    .forEach(f -> code.scripts.add(DocumentedExamplesTest.read(f)));
            code.readTheSampleApp(root);
            return code;
        }

        private void readTheSampleApp(Path root) {
            Pom sample = poms.stream().filter(p -> p.dir.equals(root.resolve("integration-tests"))).findFirst()
                    .orElseThrow(() -> new AssertionError("no integration-tests/pom.xml, the sample app's"));
            Matcher port = Pattern.compile("<demo\\.port>(\\d+)</demo\\.port>").matcher(sample.text);
            assertThat(port.find()).as("integration-tests/pom.xml's demo.port").isTrue();
            demoPort = port.group(1);
            Map<String, String> sources = sampleTypes;
            String base = sources.values().stream().map(t -> Pattern.compile("@ApplicationPath\\(\"([^\"]*)\"\\)").matcher(t))
                    .filter(Matcher::find).map(m -> m.group(1)).findFirst()
                    .orElseThrow(() -> new AssertionError("the sample app has no @ApplicationPath"));
            Set<String> found = new TreeSet<>();
            Pattern path = Pattern.compile("@Path\\(\"([^\"]*)\"\\)");
            for (String source : sources.values()) {
                int declaration = source.indexOf("public class ");
                Matcher classPath = path.matcher(source.substring(0, Math.max(declaration, 0)));
                if (declaration < 0 || !classPath.find()) {
                    continue;
                }
                String resource = join(base, classPath.group(1));
                String verb = null;
                String subPath = null;
                // a sample class that opts in to one of the library's resources inherits its methods
                String body = source.substring(declaration) + inheritedResource(source.substring(declaration));
                for (String line : body.lines().skip(1).map(String::strip).toList()) {
                    Matcher annotation = Pattern.compile("@(GET|POST|PUT|PATCH|DELETE)\\b").matcher(line);
                    Matcher sub = path.matcher(line);
                    if (annotation.matches()) {
                        verb = annotation.group(1);
                    } else if (sub.matches()) {
                        subPath = sub.group(1);
                    } else if (line.startsWith("public ") && line.contains("(")) {
                        if (verb != null) {
                            found.add(verb + " " + (subPath == null ? resource : join(resource, subPath)));
                        }
                        verb = null;
                        subPath = null;
                    }
                }
            }
            routes = new Routes(found);
            // the members the library's support look-up reads from its JSON question
            libraryTypes.values().forEach(text -> {
                Matcher member = Pattern.compile("\\(question, \"(\\w+)\"\\)").matcher(text);
                while (member.find()) {
                    requestFields.add(member.group(1));
                }
            });
            sources.forEach((name, text) -> {
                if (name.endsWith("Request")) {
                    Matcher field = Pattern.compile("private [\\w<>]+ (\\w+);").matcher(text);
                    while (field.find()) {
                        requestFields.add(field.group(1));
                    }
                }
                Matcher users = Pattern.compile("USERS = Map\\.of\\(([^)]*)\\)").matcher(text);
                if (users.find()) {
                    List<String> values = Arrays.stream(users.group(1).split(","))
                            .map(v -> v.strip().replace("\"", "")).toList();
                    for (int i = 0; i + 1 < values.size(); i += 2) {
                        demoUsers.add(values.get(i) + ":" + values.get(i + 1));
                    }
                }
            });
            assertThat(routes.routes()).as("the sample app's routes").isNotEmpty();
            assertThat(requestFields).as("the sample app's request fields").isNotEmpty();
            assertThat(demoUsers).as("the sample app's demo users").isNotEmpty();
        }

        private static String join(String base, String path) {
            return ("/" + base + "/" + path).replaceAll("/+", "/").replaceAll("(?<=.)/$", "");
        }

        Pom rootPom() {
            return poms.stream().filter(p -> p.dir.equals(ROOT)).findFirst().orElseThrow();
        }

        List<Pom> boms() {
            return poms.stream().filter(Pom::isBom).toList();
        }

        boolean isKnownProperty(String name) {
            return TOOL_PROPERTIES.contains(name) || poms.stream().anyMatch(p -> p.properties.contains(name))
                    || javaStrings.contains(name) || scripts.stream().anyMatch(s -> s.contains(name));
        }

        Optional<String> typeSource(String simpleName) {
            return libraryTypes.entrySet().stream().filter(e -> e.getKey().endsWith("." + simpleName))
                    .map(Map.Entry::getValue).findFirst();
        }

        Optional<String> anySource(String fqcn) {
            return Optional.ofNullable(allTypes.get(fqcn));
        }

        private static String fqcn(Path file, String text) {
            Matcher pkg = Pattern.compile("(?m)^package ([\\w.]+);").matcher(text);
            String simple = file.getFileName().toString().replace(".java", "");
            return pkg.find() ? pkg.group(1) + "." + simple : simple;
        }

        /** @return the repository's files, build outputs and hidden folders (but .ci) left out */
        static List<Path> files(Path root) {
            List<Path> files = new ArrayList<>();
            Predicate<Path> skipped = dir -> !dir.equals(root) && (dir.endsWith("target") || dir.endsWith("node_modules")
                    || dir.getFileName().toString().startsWith(".") && !dir.endsWith(".ci"));
            try {
                Files.walkFileTree(root, new SimpleFileVisitor<>() {
                    @Override
                    public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attributes) {
                        return skipped.test(dir) ? FileVisitResult.SKIP_SUBTREE : FileVisitResult.CONTINUE;
                    }

                    @Override
                    public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) {
                        if (attributes.isRegularFile()) {
                            files.add(file);
                        }
                        return FileVisitResult.CONTINUE;
                    }
                });
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            files.sort(null);
            return files;
        }
    }

    // --- shell and XML -----------------------------------------------------------------------------

    /** Just enough of the shell's grammar to split the blocks into commands and words. */
    static final class Shell {
        private Shell() {
        }

        /** @return the commands (lists of words, quotes removed), comments and loop headers left out */
        static List<List<String>> commands(String script) {
            List<List<String>> commands = new ArrayList<>();
            List<String> words = new ArrayList<>();
            StringBuilder word = null;
            int i = 0;
            while (i < script.length()) {
                char c = script.charAt(i);
                if (c == '\\' && i + 1 < script.length() && script.charAt(i + 1) == '\n') {
                    i += 2;
                } else if (word == null && c == '#') {
                    while (i < script.length() && script.charAt(i) != '\n') {
                        i++;
                    }
                } else if (c == '\n' || c == ';' || c == '&' || c == '|' || c == ' ' || c == '\t') {
                    if (word != null) {
                        words.add(word.toString());
                        word = null;
                    }
                    if (c != ' ' && c != '\t') {
                        add(commands, words);
                        words = new ArrayList<>();
                    }
                    i++;
                } else {
                    if (word == null) {
                        word = new StringBuilder();
                    }
                    if (c == '\'') {
                        int end = script.indexOf('\'', i + 1);
                        end = end < 0 ? script.length() : end;
                        word.append(script, i + 1, end);
                        i = end + 1;
                    } else if (c == '"') {
                        for (i++; i < script.length() && script.charAt(i) != '"'; i++) {
                            if (script.charAt(i) == '\\') {
                                i++;
                            }
                            word.append(script.charAt(i));
                        }
                        i++;
                    } else if (c == '$' && i + 1 < script.length() && script.charAt(i + 1) == '(') {
                        int depth = 0;
                        do {
                            char d = script.charAt(i++);
                            depth += d == '(' ? 1 : d == ')' ? -1 : 0;
                            word.append(d);
                        } while (depth > 0 || script.charAt(i - 1) != ')');
                    } else if (c == '\\') {
                        word.append(script.charAt(i + 1));
                        i += 2;
                    } else {
                        word.append(c);
                        i++;
                    }
                }
            }
            if (word != null) {
                words.add(word.toString());
            }
            add(commands, words);
            return commands;
        }

        private static void add(List<List<String>> commands, List<String> words) {
            List<String> command = new ArrayList<>(words);
            while (!command.isEmpty() && Set.of("do", "then", "else").contains(command.get(0))) {
                command.remove(0);
            }
            if (!command.isEmpty() && !command.get(0).equals("for")) {
                commands.add(command);
            }
        }
    }

    static final class Xml {
        private Xml() {
        }

        static Document parse(String text) {
            try {
                DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
                factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
                return factory.newDocumentBuilder().parse(new InputSource(new StringReader(text)));
            } catch (Exception e) {
                throw new IllegalArgumentException(e.getMessage(), e);
            }
        }

        static Element child(Element parent, String name) {
            if (parent == null) {
                return null;
            }
            List<Element> children = children(parent, name);
            return children.isEmpty() ? null : children.get(0);
        }

        static String text(Element parent, String name) {
            Element child = child(parent, name);
            return child == null ? null : child.getTextContent().strip();
        }

        /** @return the child elements named {@code name}, or all of them when it is null */
        static List<Element> children(Element parent, String name) {
            List<Element> children = new ArrayList<>();
            for (Node node = parent.getFirstChild(); node != null; node = node.getNextSibling()) {
                if (node instanceof Element element && (name == null || element.getTagName().equals(name))) {
                    children.add(element);
                }
            }
            return children;
        }

        static List<Element> descendants(Element parent, String name) {
            List<Element> found = new ArrayList<>();
            NodeList nodes = parent.getElementsByTagName(name);
            for (int i = 0; i < nodes.getLength(); i++) {
                found.add((Element) nodes.item(i));
            }
            return found;
        }

        /** @return whether both have the same name, attributes and child elements, whitespace aside */
        static boolean same(Element a, Element b) {
            if (!a.getTagName().equals(b.getTagName()) || a.getAttributes().getLength() != b.getAttributes().getLength()) {
                return false;
            }
            for (int i = 0; i < a.getAttributes().getLength(); i++) {
                Node attribute = a.getAttributes().item(i);
                if (!attribute.getNodeValue().equals(b.getAttribute(attribute.getNodeName()))) {
                    return false;
                }
            }
            List<Element> childrenA = children(a, null);
            List<Element> childrenB = children(b, null);
            if (childrenA.size() != childrenB.size()) {
                return false;
            }
            for (int i = 0; i < childrenA.size(); i++) {
                if (!same(childrenA.get(i), childrenB.get(i))) {
                    return false;
                }
            }
            return childrenA.isEmpty() ? a.getTextContent().strip().equals(b.getTextContent().strip()) : true;
        }
    }
}
