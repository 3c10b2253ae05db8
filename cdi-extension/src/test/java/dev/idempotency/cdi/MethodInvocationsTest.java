package dev.idempotency.cdi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

import jakarta.enterprise.context.ApplicationScoped;

import org.jboss.weld.environment.se.Weld;
import org.jboss.weld.environment.se.WeldContainer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.idempotency.IdempotencyKey;
import dev.idempotency.IdempotencyOutcome;
import dev.idempotency.Idempotent;
import dev.idempotency.exceptions.IdempotencyConflictException;
import dev.idempotency.exceptions.IdempotencyDefinitionException;
import dev.idempotency.exceptions.IdempotencyException;
import dev.idempotency.exceptions.IdempotencyKeyReuseException;
import dev.idempotency.exceptions.InvalidIdempotencyKeyException;

/** Non-HTTP {@code @Idempotent} methods on a real CDI container with the in-memory store. */
class MethodInvocationsTest {

    public record Line(String sku, int quantity) {
    }

    public record Receipt(String orderNo, int sequence, List<Line> lines) {
    }

    /** An amount of some currency. */
    public interface Money {
        long cents();
    }

    public record Euros(long cents) implements Money {
    }

    public record Priced(String id, Money amount) {
    }

    public record OrderMessage(String orderNo, List<Line> lines) {
    }

    /** A result bean whose properties have defaults other than null. */
    public static class Quote {
        public String id;
        public String status = "PENDING";
        public List<String> warnings = new ArrayList<>();
        public Optional<String> coupon = Optional.of("WELCOME");
    }

    /** A result bean whose setter refuses null, returned with that property null. */
    public static class Basket {
        public String id;
        private List<String> lines = new ArrayList<>();

        public List<String> getLines() {
            return lines;
        }

        public void setLines(List<String> lines) {
            this.lines = new ArrayList<>(lines);
        }

        void dropLines() {
            lines = null;
        }
    }

    /** A result whose class, as if changed since its result was stored, can no longer read it. */
    public static class Fragile {
        static volatile boolean changed;
        public String id;

        public Fragile() {
            if (changed) {
                throw new IllegalStateException("the class changed since");
            }
        }

        static Fragile of(String id) {
            Fragile fragile = new Fragile();
            fragile.id = id;
            return fragile;
        }
    }

    /** An argument that nests itself. */
    public record Node(String value, Node next) {
    }

    /** A command of one of two kinds, whose JSON (no type in it) is the same for both. */
    public interface Command {
        long cents();
    }

    public record Credit(long cents) implements Command {
    }

    public record Debit(long cents) implements Command {
    }

    /** An entity keyed by the text it writes, its id; JSON-B cannot write it (a lazy association outside its session). */
    public static final class Shipment {
        private final String id;

        public Shipment(String id) {
            this.id = id;
        }

        public String getCarrier() {
            throw new IllegalStateException("lazy association read outside its session");
        }

        @Override
        public String toString() {
            return id;
        }
    }

    /** What an observer of orders gets injected besides the event, counting its runs: its JSON changes with each. */
    @ApplicationScoped
    public static class Tally {
        private int count;

        public int getCount() {
            return count;
        }

        void add() {
            count++;
        }
    }

    @ApplicationScoped
    public static class OrderObserver {
        @Idempotent
        public void on(@jakarta.enterprise.event.Observes @IdempotencyKey("orderNo") OrderMessage order, Tally tally) {
            tally.add();
        }
    }

    /** A message whose payload holds a set and a map: their iteration order is not their content. */
    public record Tagging(String orderNo, Set<String> tags, Map<String, Integer> limits) {
    }

    @ApplicationScoped
    public static class Consumer {
        final AtomicInteger executions = new AtomicInteger();
        volatile CountDownLatch gate;

        public int executions() {
            return executions.get();
        }

        public void gate(CountDownLatch latch) {
            gate = latch;
        }

        @Idempotent
        public Receipt onOrder(@IdempotencyKey("orderNo") OrderMessage message) throws InterruptedException {
            int sequence = executions.incrementAndGet();
            CountDownLatch wait = gate;
            if (wait != null) {
                wait.await(10, TimeUnit.SECONDS);
            }
            return new Receipt(message.orderNo(), sequence, message.lines());
        }

        @Idempotent
        public int tag(@IdempotencyKey("orderNo") Tagging message, Set<Line> extra) {
            return executions.incrementAndGet();
        }

        @Idempotent
        public List<Receipt> batch(@IdempotencyKey String batchId) {
            executions.incrementAndGet();
            return List.of(new Receipt(batchId, 1, List.of()), new Receipt(batchId, 2, List.of(new Line("a", 1))));
        }

        @Idempotent
        public Optional<Receipt> maybe(@IdempotencyKey String id, boolean present) {
            executions.incrementAndGet();
            return present ? Optional.of(new Receipt(id, 1, List.of())) : Optional.empty();
        }

        @Idempotent
        public void notify(@IdempotencyKey String id) {
            executions.incrementAndGet();
        }

        @Idempotent
        public String failing(@IdempotencyKey String id) throws IOException {
            executions.incrementAndGet();
            throw new IOException("checked failure " + executions.get());
        }

        @Idempotent(fingerprintArguments = false)
        public int counted(@IdempotencyKey String id, int attempt) {
            return executions.incrementAndGet();
        }

        @Idempotent
        public CompletionStage<Receipt> async(@IdempotencyKey String id, boolean fail) {
            executions.incrementAndGet();
            return CompletableFuture.supplyAsync(() -> {
                if (fail) {
                    throw new IllegalStateException("async failure");
                }
                return new Receipt(id, executions.get(), List.of());
            });
        }

        /** Returns its properties null, which their defaults are not. */
        @Idempotent
        public Quote quote(@IdempotencyKey String id) {
            executions.incrementAndGet();
            Quote quote = new Quote();
            quote.id = id;
            quote.status = null;
            quote.warnings = null;
            quote.coupon = null;
            return quote;
        }

        @Idempotent
        public Basket basket(@IdempotencyKey String id) {
            executions.incrementAndGet();
            Basket basket = new Basket();
            basket.id = id;
            basket.dropLines();
            return basket;
        }

        @Idempotent
        public Fragile fragile(@IdempotencyKey String id) {
            executions.incrementAndGet();
            return Fragile.of(id);
        }

        @Idempotent
        public CompletionStage<Fragile> fragileLater(@IdempotencyKey String id) {
            executions.incrementAndGet();
            return CompletableFuture.completedStage(Fragile.of(id));
        }

        @Idempotent
        public int walk(@IdempotencyKey String id, Node path) {
            return executions.incrementAndGet();
        }

        @Idempotent
        public CompletionStage<Integer> walkLater(@IdempotencyKey String id, Node path) {
            return CompletableFuture.completedStage(executions.incrementAndGet());
        }

        /** A result JSON-B writes but cannot read back: a component of an interface type. */
        @Idempotent
        public Priced priced(@IdempotencyKey String id) {
            executions.incrementAndGet();
            return new Priced(id, new Euros(5));
        }

        @Idempotent
        public CompletionStage<String> minimal(@IdempotencyKey String id) {
            executions.incrementAndGet();
            return CompletableFuture.completedStage("done " + id);
        }

        @Idempotent
        public CompletionStage<Receipt> declined(@IdempotencyKey String id) {
            executions.incrementAndGet();
            return CompletableFuture.failedFuture(new IllegalArgumentException("card declined"));
        }

        @Idempotent
        public String apply(@IdempotencyKey String id, Command command) {
            return command.getClass().getSimpleName() + " " + executions.incrementAndGet();
        }

        @Idempotent
        public int ship(@IdempotencyKey Shipment shipment) {
            return executions.incrementAndGet();
        }

        @Idempotent
        public int settleAny(@IdempotencyKey Object invoiceIds) {
            return executions.incrementAndGet();
        }

        @Idempotent
        public String applyAny(@IdempotencyKey String id, Object command) {
            return command.getClass().getSimpleName() + " " + executions.incrementAndGet();
        }

        @Idempotent
        public int settle(@IdempotencyKey List<String> invoiceIds) {
            return executions.incrementAndGet();
        }

        @Idempotent
        public int settleMaybe(@IdempotencyKey Optional<List<String>> invoiceIds) {
            return executions.incrementAndGet();
        }

        @Idempotent
        public String transfer(@IdempotencyKey("orderNo") OrderMessage from, @IdempotencyKey String requestId) {
            return "moved " + executions.incrementAndGet();
        }
    }

    @jakarta.enterprise.context.Dependent
    public static class DependentConsumer {
        static final AtomicInteger EXECUTIONS = new AtomicInteger();

        @Idempotent
        public int handle(@IdempotencyKey String id) {
            return EXECUTIONS.incrementAndGet();
        }
    }

    @jakarta.enterprise.context.RequestScoped
    public static class RequestScopedConsumer {
        static final AtomicInteger EXECUTIONS = new AtomicInteger();

        @Idempotent
        public int handle(@IdempotencyKey String id) {
            return EXECUTIONS.incrementAndGet();
        }
    }

    @ApplicationScoped
    public static class StreamingConsumer {
        @Idempotent
        public Stream<String> stream(@IdempotencyKey String id) {
            return Stream.empty();
        }
    }

    @ApplicationScoped
    @jakarta.ws.rs.Path("events")
    public static class EventStream {
        @jakarta.ws.rs.POST
        @Idempotent
        public void publish(@jakarta.ws.rs.core.Context jakarta.ws.rs.sse.SseEventSink sink) {
        }
    }

    @ApplicationScoped
    public static class KeyWithoutIdempotent {
        public void handle(@IdempotencyKey String id) {
        }
    }

    @ApplicationScoped
    public static class AsyncEjb {
        @Idempotent
        @jakarta.ejb.Asynchronous
        public CompletableFuture<String> handle(@IdempotencyKey String id) {
            return CompletableFuture.completedFuture(id);
        }
    }

    private WeldContainer container;
    private Consumer consumer;

    private static Weld weld(Class<?>... beans) {
        return TestContainers.weld(beans);
    }

    @BeforeEach
    void start() {
        container = weld(Consumer.class).initialize();
        consumer = container.select(Consumer.class).get();
    }

    @AfterEach
    void stop() {
        container.close();
    }

    private static OrderMessage order(String orderNo) {
        return new OrderMessage(orderNo, List.of(new Line("sku-1", 2)));
    }

    /**
     * JSON-B leaves null properties out by default, and the read then kept the constructor's
     * defaults: a duplicate got "PENDING" and an empty list where the first call had null.
     */
    @Test
    void nullPropertiesOfAResultAreReplayedNullNotAsTheirDefaults() {
        Quote first = consumer.quote("q-1");
        Quote replayed = consumer.quote("q-1");

        assertThat(consumer.executions()).isEqualTo(1);
        assertThat(replayed).isNotSameAs(first);
        assertThat(replayed.id).isEqualTo("q-1");
        assertThat(replayed.status).isNull();
        assertThat(replayed.warnings).isNull();
        assertThat(replayed.coupon).as("null, or empty at the least, never the default").isNotEqualTo(Optional.of("WELCOME"));
    }

    /**
     * A stored result its class can no longer read (changed by a redeployment within the ttl): the
     * duplicate got JSON-B's own exception, uncoded, thrown even from a stage method.
     */
    @Test
    void aStoredResultThatCannotBeReadAnymoreIsACodedRefusal() {
        consumer.fragile("f-1");
        consumer.fragileLater("f-2").toCompletableFuture().join();
        try {
            Fragile.changed = true;

            assertThatThrownBy(() -> consumer.fragile("f-1")).isExactlyInstanceOf(IdempotencyException.class)
                    .hasMessageContaining("IDEMP0328").hasMessageContaining(Fragile.class.getName());
            assertThat(consumer.fragileLater("f-2")).failsWithin(java.time.Duration.ofSeconds(5))
                    .withThrowableOfType(ExecutionException.class).withCauseExactlyInstanceOf(IdempotencyException.class)
                    .withMessageContaining("IDEMP0328");
            assertThat(consumer.executions()).as("neither ran again").isEqualTo(2);
        } finally {
            Fragile.changed = false;
        }
    }

    /** Such a duplicate is not counted as a replay: nothing was replayed; its outcome is lost. */
    @Test
    void aStoredResultThatCannotBeReadAnymoreIsObservedAsLostNotReplayed() {
        container.close();
        container = weld(Consumer.class, EventPublisherTest.Recorder.class).initialize();
        consumer = container.select(Consumer.class).get();
        EventPublisherTest.Recorder recorder = container.select(EventPublisherTest.Recorder.class).get();
        consumer.fragile("f-3");
        try {
            Fragile.changed = true;
            assertThatThrownBy(() -> consumer.fragile("f-3")).hasMessageContaining("IDEMP0328");
        } finally {
            Fragile.changed = false;
        }

        assertThat(recorder.outcomes()).containsExactly(IdempotencyOutcome.CLAIMED, IdempotencyOutcome.COMPLETED,
                IdempotencyOutcome.OUTCOME_LOST);
    }

    /**
     * A property whose setter refuses null (it copies the list it is given): written as null, the
     * result could not be read back and was not stored (IDEMP0327) since null properties were kept;
     * stored without them, as before, it is replayed.
     */
    @Test
    void aResultWhoseSetterRefusesNullIsStillReplayed() {
        consumer.basket("b-1");

        Basket replayed = consumer.basket("b-1");

        assertThat(replayed.id).isEqualTo("b-1");
        assertThat(consumer.executions()).isEqualTo(1);
    }

    /** An argument nested deeper than JSON-B's recursion reaches: refused with its code, not a StackOverflowError. */
    @Test
    void anArgumentTooDeepToFingerprintIsRefusedWithItsCode() {
        Node path = null;
        for (int i = 0; i < 50_000; i++) {
            path = new Node("n" + i, path);
        }
        Node deep = path;

        assertThatThrownBy(() -> consumer.walk("w-1", deep)).isInstanceOf(IdempotencyException.class)
                .hasMessageContaining("IDEMP0307");
        assertThat(consumer.walkLater("w-2", deep)).as("a stage method answers with a failed stage")
                .failsWithin(java.time.Duration.ofSeconds(5)).withThrowableOfType(java.util.concurrent.ExecutionException.class)
                .withCauseInstanceOf(IdempotencyException.class).withMessageContaining("IDEMP0307");
        assertThat(consumer.executions()).isZero();
    }

    @Test
    void aDuplicateGetsAnEqualResultWithoutRunning() throws Exception {
        Receipt first = consumer.onOrder(order("o-1"));
        Receipt second = consumer.onOrder(order("o-1"));

        assertThat(second).isEqualTo(first).isNotSameAs(first);
        assertThat(consumer.executions()).isEqualTo(1);
        assertThat(consumer.onOrder(order("o-2")).sequence()).isEqualTo(2);
    }

    @Test
    void genericResultsRoundTrip() {
        List<Receipt> first = consumer.batch("b-1");
        assertThat(consumer.batch("b-1")).isEqualTo(first);
        assertThat(consumer.maybe("m-1", true)).isEqualTo(consumer.maybe("m-1", true)).isPresent();
        assertThat(consumer.maybe("m-2", false)).isEmpty();
        assertThat(consumer.maybe("m-2", false)).isEmpty();
        assertThat(consumer.executions()).isEqualTo(3);
    }

    @Test
    void aVoidDuplicateIsSkipped() {
        consumer.notify("n-1");
        consumer.notify("n-1");

        assertThat(consumer.executions()).isEqualTo(1);
    }

    @Test
    void anExceptionIsRethrownUnchangedAndReleasesTheKey() {
        assertThatThrownBy(() -> consumer.failing("f-1")).isExactlyInstanceOf(IOException.class)
                .hasMessage("checked failure 1");
        assertThatThrownBy(() -> consumer.failing("f-1")).isExactlyInstanceOf(IOException.class)
                .hasMessage("checked failure 2");
    }

    @Test
    void aDuplicateWhileRunningIsAConflict() throws Exception {
        CountDownLatch gate = new CountDownLatch(1);
        consumer.gate(gate);
        CompletableFuture<Receipt> first = CompletableFuture.supplyAsync(() -> {
            try {
                return consumer.onOrder(order("o-9"));
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        while (consumer.executions() == 0) {
            Thread.sleep(5);
        }

        assertThatThrownBy(() -> consumer.onOrder(order("o-9"))).isInstanceOf(IdempotencyConflictException.class)
                .hasMessageStartingWith("IDEMP0305");
        gate.countDown();
        Receipt original = first.get(10, TimeUnit.SECONDS);
        assertThat(consumer.onOrder(order("o-9"))).isEqualTo(original);
        assertThat(consumer.executions()).isEqualTo(1);
    }

    @Test
    void aKeyReusedWithOtherArgumentsIsRefused() throws Exception {
        consumer.onOrder(order("o-3"));

        assertThatThrownBy(() -> consumer.onOrder(new OrderMessage("o-3", List.of(new Line("other", 1)))))
                .isInstanceOf(IdempotencyKeyReuseException.class).hasMessageStartingWith("IDEMP0306");
        assertThat(consumer.executions()).isEqualTo(1);
    }

    @Test
    void anArgumentOfAnotherClassWithTheSameJsonIsAnotherRequest() {
        // JSON-B writes {"cents":10} for both: the debit got the credit's result and never ran.
        assertThat(consumer.apply("c-1", new Credit(10))).isEqualTo("Credit 1");

        assertThatThrownBy(() -> consumer.apply("c-1", new Debit(10))).isInstanceOf(IdempotencyKeyReuseException.class);
        assertThat(consumer.apply("c-1", new Credit(10))).as("the same command again replays").isEqualTo("Credit 1");
        assertThat(consumer.executions()).isEqualTo(1);
    }

    @Test
    void aKeyWhoseTextTwoValuesShareIsFingerprintedToo() {
        // Both lists' text is "[a, b]": the second call was given the first one's result.
        consumer.settle(List.of("a", "b"));

        assertThatThrownBy(() -> consumer.settle(List.of("a, b"))).isInstanceOf(IdempotencyKeyReuseException.class);
        assertThat(consumer.settle(new java.util.ArrayList<>(List.of("a", "b")))).as("an equal list replays").isEqualTo(1);
        assertThat(consumer.executions()).isEqualTo(1);
    }

    /** The same in an Optional: the two lists' text was the key and nothing else was fingerprinted. */
    @Test
    void aKeyWhoseTextTwoValuesShareIsFingerprintedInAnOptionalToo() {
        consumer.settleMaybe(Optional.of(List.of("a", "b")));

        assertThatThrownBy(() -> consumer.settleMaybe(Optional.of(List.of("a, b"))))
                .isInstanceOf(IdempotencyKeyReuseException.class);
        assertThat(consumer.settleMaybe(Optional.of(new ArrayList<>(List.of("a", "b"))))).as("an equal list replays")
                .isEqualTo(1);
        assertThat(consumer.executions()).isEqualTo(1);
    }

    @Test
    void behindObjectTheValuesClassDecides() {
        consumer.settleAny(List.of("a", "b"));
        assertThatThrownBy(() -> consumer.settleAny(List.of("a, b"))).isInstanceOf(IdempotencyKeyReuseException.class);
        assertThat(consumer.settleAny(List.of("a", "b"))).isEqualTo(1);

        consumer.applyAny("c-2", new Credit(10));
        assertThatThrownBy(() -> consumer.applyAny("c-2", new Debit(10))).isInstanceOf(IdempotencyKeyReuseException.class);
        assertThat(consumer.executions()).isEqualTo(2);
    }

    @Test
    void aKeyOfAClassThatWritesItsOwnTextIsTakenAtItsWord() {
        // Not written by JSON-B, which could not (and every call would be refused, IDEMP0307).
        assertThat(consumer.ship(new Shipment("s-1"))).isEqualTo(1);
        assertThat(consumer.ship(new Shipment("s-1"))).as("a replay").isEqualTo(1);
        assertThat(consumer.executions()).isEqualTo(1);
    }

    @Test
    void anObserversInjectedBeansAreNoPartOfTheRequest() {
        container.close();
        container = weld(Consumer.class, OrderObserver.class, Tally.class).initialize();

        container.getBeanManager().getEvent().select(OrderMessage.class).fire(order("o-obs"));
        container.getBeanManager().getEvent().select(OrderMessage.class).fire(order("o-obs"));

        assertThat(container.select(Tally.class).get().getCount()).as("the redelivered event is skipped").isEqualTo(1);
    }

    @Test
    void equalSetsAndMapsInAnotherIterationOrderAreTheSameRequest() throws Exception {
        // A retry on another node (Set.of and Map.of iterate in an order of the JVM's own) or built
        // in another order: equal arguments must replay, not be refused as another request.
        int first = consumer.tag(new Tagging("o-set", ordered("eu", "vip", "b2b"), orderedMap("eu", 1, "us", 2)),
                ordered(new Line("a", 1), new Line("b", 2)));

        int retry = consumer.tag(new Tagging("o-set", ordered("b2b", "eu", "vip"), orderedMap("us", 2, "eu", 1)),
                ordered(new Line("b", 2), new Line("a", 1)));

        assertThat(retry).isEqualTo(first);
        assertThat(consumer.executions()).isEqualTo(1);
        assertThatThrownBy(() -> consumer.tag(new Tagging("o-set", ordered("eu", "vip"), orderedMap("eu", 1, "us", 2)),
                ordered(new Line("a", 1), new Line("b", 2)))).as("another set is another request")
                .isInstanceOf(IdempotencyKeyReuseException.class);
        assertThatThrownBy(() -> consumer.tag(new Tagging("o-set", ordered("eu", "vip", "b2b"), orderedMap("eu", 1, "us", 3)),
                ordered(new Line("a", 1), new Line("b", 2)))).as("another map is another request")
                .isInstanceOf(IdempotencyKeyReuseException.class);
        assertThat(consumer.executions()).isEqualTo(1);
    }

    @SafeVarargs
    private static <T> Set<T> ordered(T... elements) {
        return new LinkedHashSet<>(List.of(elements));
    }

    private static Map<String, Integer> orderedMap(String k1, int v1, String k2, int v2) {
        Map<String, Integer> map = new LinkedHashMap<>();
        map.put(k1, v1);
        map.put(k2, v2);
        return map;
    }

    @Test
    void fingerprintingCanBeSwitchedOff() {
        assertThat(consumer.counted("c-1", 1)).isEqualTo(1);
        assertThat(consumer.counted("c-1", 2)).as("another attempt number, same key: a replay").isEqualTo(1);
    }

    @Test
    void severalKeyPartsCombine() {
        String first = consumer.transfer(order("o-5"), "r-1");
        assertThat(consumer.transfer(order("o-5"), "r-1")).isEqualTo(first);
        assertThat(consumer.transfer(order("o-5"), "r-2")).isNotEqualTo(first);
    }

    @Test
    void anInvalidKeyRunsNothing() {
        assertThatThrownBy(() -> consumer.notify("")).isInstanceOf(InvalidIdempotencyKeyException.class);
        assertThatThrownBy(() -> consumer.notify(null)).isInstanceOf(InvalidIdempotencyKeyException.class);
        assertThat(consumer.executions()).isZero();
    }

    /**
     * A stage method is refused the one way its return type allows, whatever the reason: an
     * invalid key is a failed stage, as a missing tenant or an unknown token already were, not an
     * exception thrown at the caller.
     */
    @Test
    void aStageMethodWithAnInvalidKeyGetsAFailedStageAndRunsNothing() {
        CompletionStage<String> refused = consumer.minimal("   ");

        assertThatThrownBy(() -> refused.toCompletableFuture().get(5, java.util.concurrent.TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class).hasCauseInstanceOf(InvalidIdempotencyKeyException.class);
        assertThat(consumer.executions()).isZero();
    }

    @Test
    void aStageIsStoredWhenItCompletesAndReleasedWhenItFails() throws Exception {
        Receipt first = consumer.async("a-1", false).toCompletableFuture().get(10, TimeUnit.SECONDS);
        assertThat(consumer.async("a-1", false).toCompletableFuture().get(10, TimeUnit.SECONDS)).isEqualTo(first);
        assertThat(consumer.executions()).isEqualTo(1);

        assertThatThrownBy(() -> consumer.async("a-2", true).toCompletableFuture().get(10, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class);
        assertThatThrownBy(() -> consumer.async("a-2", true).toCompletableFuture().get(10, TimeUnit.SECONDS))
                .as("released, so it ran again").isInstanceOf(ExecutionException.class);
        assertThat(consumer.executions()).isEqualTo(3);
    }

    /**
     * The stage the caller gets fails with the method's own failure, not a {@code CompletionException}
     * wrapping it: an {@code exceptionally} callback (or a JAX-RS mapper of the exception's type)
     * sees what it would see without the annotation.
     */
    @Test
    void aFailedStageReachesTheCallerWithTheMethodsOwnFailure() throws Exception {
        Throwable seen = consumer.declined("f-1").handle((receipt, failure) -> failure).toCompletableFuture()
                .get(10, TimeUnit.SECONDS);

        assertThat(seen).isInstanceOf(IllegalArgumentException.class).hasMessage("card declined");
        consumer.declined("f-1");
        assertThat(consumer.executions()).as("released, so it ran again").isEqualTo(2);
    }

    /**
     * A result larger than idempotency.max-stored-body-size is not stored (the bound every stored
     * outcome keeps, as an HTTP body's): its duplicates are told so, and never run it again.
     */
    @Test
    void aResultLargerThanTheStoredBodyCapIsNotStoredAndNeverRunsAgain() throws Exception {
        stop();
        System.setProperty("idempotency.max-stored-body-size", "16");
        try {
            start();
            consumer.onOrder(order("o-large"));

            assertThatThrownBy(() -> consumer.onOrder(order("o-large"))).isExactlyInstanceOf(IdempotencyException.class)
                    .hasMessageContaining("IDEMP0309");
            assertThat(consumer.executions()).isEqualTo(1);
        } finally {
            System.clearProperty("idempotency.max-stored-body-size");
        }
    }

    /**
     * A result JSON-B writes but cannot read back (a record component of an interface type): stored,
     * every duplicate (a redelivered message) would fail reading it, each time. It is not stored;
     * duplicates are told so, and never run it again.
     */
    @Test
    void aResultThatCannotBeReadBackIsNotStoredAndNeverRunsAgain() {
        consumer.priced("p-1");

        assertThatThrownBy(() -> consumer.priced("p-1")).isExactlyInstanceOf(IdempotencyException.class)
                .hasMessageContaining("IDEMP0309");
        assertThat(consumer.executions()).isEqualTo(1);
    }

    /** A minimal stage (CompletableFuture.completedStage) cannot be completed: the caller still gets its value. */
    @Test
    void aMinimalStageReachesTheCallerAndIsReplayed() throws Exception {
        assertThat(consumer.minimal("m-1").toCompletableFuture().get(5, TimeUnit.SECONDS)).isEqualTo("done m-1");
        assertThat(consumer.minimal("m-1").toCompletableFuture().get(5, TimeUnit.SECONDS)).isEqualTo("done m-1");
        assertThat(consumer.executions()).isEqualTo(1);
    }

    @Test
    void dependentAndRequestScopedBeansAreProtectedAcrossInstances() {
        try (WeldContainer other = weld(DependentConsumer.class, RequestScopedConsumer.class).initialize()) {
            int first = other.select(DependentConsumer.class).get().handle("d-1");
            assertThat(other.select(DependentConsumer.class).get().handle("d-1")).as("another instance").isEqualTo(first);
            assertThat(DependentConsumer.EXECUTIONS.get()).isEqualTo(1);

            var requests = other.select(org.jboss.weld.context.bound.BoundRequestContext.class).get();
            for (int request = 0; request < 2; request++) {
                requests.associate(new java.util.HashMap<>());
                requests.activate();
                try {
                    assertThat(other.select(RequestScopedConsumer.class).get().handle("r-1")).isEqualTo(1);
                } finally {
                    requests.invalidate();
                    requests.deactivate();
                }
            }
            assertThat(RequestScopedConsumer.EXECUTIONS.get()).isEqualTo(1);
        }
    }

    @Test
    void unsupportedDefinitionsFailTheDeployment() {
        assertThatThrownBy(() -> weld(StreamingConsumer.class).initialize().close())
                .hasStackTraceContaining("IDEMP0112: bean " + StreamingConsumer.class.getName() + ", method stream");
        assertThatThrownBy(() -> weld(KeyWithoutIdempotent.class).initialize().close())
                .hasStackTraceContaining("IDEMP0111: bean " + KeyWithoutIdempotent.class.getName() + ", method handle");
        assertThatThrownBy(() -> weld(EventStream.class).initialize().close())
                .hasStackTraceContaining("IDEMP0149: bean " + EventStream.class.getName() + ", method publish")
                .hasStackTraceContaining("SseEventSink");
        assertThatThrownBy(() -> weld(AsyncEjb.class).initialize().close())
                .hasStackTraceContaining("IDEMP0113: bean " + AsyncEjb.class.getName() + ", method handle");
    }

    /**
     * A resource that is not a CDI bean (one of {@code Application.getSingletons()}) is found when
     * JAX-RS starts, not at deployment: its streamed answer went unchecked, and every retry got an
     * empty replay of the events the first request was sent.
     */
    @Test
    void aStreamedAnswerOfAResourceFoundWhenJaxRsStartsFailsItsStartToo() throws Exception {
        try (WeldContainer container = weld(Consumer.class).initialize()) {
            IdempotencyExtension extension = container.select(IdempotencyExtension.class).get();

            assertThatThrownBy(() -> extension.policy(EventStream.class,
                    EventStream.class.getMethod("publish", jakarta.ws.rs.sse.SseEventSink.class)))
                    .isInstanceOf(IdempotencyDefinitionException.class)
                    .hasMessageStartingWith("IDEMP0149: bean " + EventStream.class.getName() + ", method publish")
                    .hasMessageContaining("SseEventSink");
        }
    }
}
