package dev.idempotency.infinispan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.infinispan.client.hotrod.RemoteCache;
import org.infinispan.client.hotrod.RemoteCacheManager;
import org.infinispan.client.hotrod.exceptions.TransportException;
import org.infinispan.commons.configuration.StringConfiguration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import dev.idempotency.spi.ClaimResult;
import dev.idempotency.spi.IdempotencyRecord;
import dev.idempotency.spi.IdempotencyStore;
import dev.idempotency.spi.IdempotencyStoreException;
import dev.idempotency.spi.RecordDetails;
import dev.idempotency.spi.RecordState;
import dev.idempotency.spi.contract.IdempotencyStoreContractTest;

/**
 * The store contract against a real Infinispan 15.2 server (its own process, loopback,
 * authentication on), reached the way the store does in an application: the client built from
 * {@code infinispan.client.hotrod.*} properties, the schema registered and the cache created by
 * {@link InfinispanConnection#open}.
 */
class InfinispanStoreContractTest extends IdempotencyStoreContractTest {

    static InfinispanServer server;
    static RemoteCacheManager manager;
    static InfinispanConnection connection;

    @BeforeAll
    static void startServer() throws Exception {
        server = InfinispanServer.single("contract", InfinispanServer.freeJGroupsPort());
        manager = new RemoteCacheManager(InfinispanConnection.clientConfiguration(server.clientProperties()));
        connection = new InfinispanConnection(manager, InfinispanSettings.load(key -> Optional.empty()));
    }

    @AfterAll
    static void stopServer() throws Exception {
        if (manager != null) {
            manager.close();
        }
        if (server != null) {
            server.close();
        }
    }

    @Test
    void recordsAreProtoStreamReadableAsJsonThroughTheServersRestApi() throws Exception {
        String key = "rest-" + System.nanoTime();
        String owner = ((ClaimResult.Acquired) createStore().claim(key, "fp-rest", LONG)).owner();

        String answer = server.rest("GET", "/rest/v2/caches/idempotency/" + key, null);

        assertThat(answer).startsWith("200 ")
                .contains("\"_type\"", "dev.idempotency.StoredRecord", "CLAIMED", "fp-rest", owner,
                        "\"leaseMillis\":" + LONG.toMillis());
    }

    /**
     * A rolling upgrade: a claim a node of a version before schema 3 made is a record
     * {@code IN_PROGRESS} whose lease is a marker entry of its owner's. Our claims of the same
     * request leave it to its owner while the marker lives, and take it over once it is gone.
     */
    @Test
    void aPreviousVersionsClaimIsTakenOverOnlyOnceItsLeaseMarkerIsGone() throws Exception {
        IdempotencyStore store = createStore();
        RemoteCache<String, StoredRecord> cache = cache();
        String key = freshKey();
        StoredRecord previous = new StoredRecord(RecordState.IN_PROGRESS.name(), "fp", "previous-node-owner",
                null, null, null, null, null, null);
        cache.put(InfinispanRecords.leaseKey(key, "previous-node-owner"), previous, 2, TimeUnit.SECONDS);
        cache.put(key, previous, 1, TimeUnit.HOURS);

        ClaimResult whileItsMarkerLives = store.claim(key, "fp", LONG, LONG);
        elapse(Duration.ofSeconds(2));
        ClaimResult afterIt = store.claim(key, "fp", LONG, LONG);

        assertThat(whileItsMarkerLives).isInstanceOf(ClaimResult.Existing.class);
        assertThat(((ClaimResult.Existing) whileItsMarkerLives).record().state()).isEqualTo(RecordState.IN_PROGRESS);
        assertThat(afterIt).isInstanceOf(ClaimResult.Acquired.class);
        assertThat(((ClaimResult.Acquired) afterIt).takeover()).isTrue();
        assertThat(store.complete(key, ((ClaimResult.Acquired) afterIt).owner(), sampleOutcome(), LONG)).isTrue();
    }

    @Test
    void aTakenOverClaimIsNotTakenOverAgainWithinTheNewLease() throws Exception {
        IdempotencyStore store = createStore();
        String key = freshKey();
        acquire(key, "fp", Duration.ofSeconds(1), LONG);
        elapse(Duration.ofSeconds(1));
        ClaimResult.Acquired taker = (ClaimResult.Acquired) store.claim(key, "fp", LONG, LONG);

        ClaimResult again = store.claim(key, "fp", LONG, LONG);

        assertThat(again).as("the taker's lease lives").isInstanceOf(ClaimResult.Existing.class);
        assertThat(store.complete(key, taker.owner(), sampleOutcome(), LONG)).isTrue();
    }

    /**
     * The Hot Rod client sends a write again when its answer did not come within the socket
     * timeout (a node frozen mid-mark wakes to it): the first attempt landed, so the version it
     * moved refuses the second, and the mark answered "not yours". The work then rolled back while
     * another node, after the mark's lease, told a retry its response was lost (the fault
     * campaign, stop 34). Here the cache applies the mark, then answers the client's second
     * attempt: the mark must still count.
     */
    @Test
    void aMarkWhoseWriteTheClientSentTwiceIsMarked() {
        IdempotencyStore store = createStore();
        String key = freshKey();
        String owner = ((ClaimResult.Acquired) store.claim(key, "fp", LONG, LONG)).owner();
        InfinispanRecords resending = new InfinispanRecords(sendingTheNextVersionedReplaceTwice(
                cache()));

        assertThat(resending.markExecuted(key, owner, LONG, LONG)).isTrue();

        assertThat(store.find(key)).get().extracting(IdempotencyRecord::state).isEqualTo(RecordState.EXECUTED);
        assertThat(store.complete(key, owner, sampleOutcome(), LONG)).isTrue();
    }

    /**
     * As for a mark: the client sends the completion's write again, the first attempt landed and
     * the version it moved refuses the second. The completion is stored, so it must count: "false"
     * would tell the library its claim was lost (no completed event, a warning) for a stored answer.
     */
    @Test
    void aCompletionWhoseWriteTheClientSentTwiceIsCompleted() {
        IdempotencyStore store = createStore();
        String key = freshKey();
        String owner = ((ClaimResult.Acquired) store.claim(key, "fp", LONG, LONG)).owner();
        InfinispanRecords resending = new InfinispanRecords(sendingTheNextVersionedReplaceTwice(cache()));

        assertThat(resending.complete(key, owner, sampleOutcome(), LONG)).isTrue();

        assertThat(store.find(key)).get().extracting(IdempotencyRecord::state).isEqualTo(RecordState.COMPLETED);
    }

    /**
     * A node slower than the client's socket timeout stays slow for a while: when the client sends
     * the mark's write twice, it may send the rewrite that confirms it twice too, the first attempt
     * landing and its version refusing the second. The mark must count once a rewrite of it is
     * acknowledged (it answered "not yours" before: the caller's work rolled back, 409 for a
     * request nobody took over), and so must the mark asked again and the claim confirmed after a
     * lost answer. A write never acknowledged proves nothing of the backups (only the primary may
     * hold it), and a read cannot tell: then the mark is not counted.
     */
    @Test
    void writesTheClientSendsTwiceCountOnceOneIsAcknowledged() throws Exception {
        IdempotencyStore store = createStore();
        String key = freshKey();
        String owner = ((ClaimResult.Acquired) store.claim(key, "fp", LONG, LONG)).owner();

        assertThat(new InfinispanRecords(sendingVersionedReplacesTwice(cache(), 2), Duration.ZERO)
                .markExecuted(key, owner, LONG, LONG)).as("the mark").isTrue();
        assertThat(new InfinispanRecords(sendingVersionedReplacesTwice(cache(), 2), Duration.ZERO)
                .markExecuted(key, owner, LONG, LONG)).as("the mark asked again").isTrue();
        assertThat(store.complete(key, owner, sampleOutcome(), LONG)).isTrue();
        assertThat(store.find(key)).get().extracting(IdempotencyRecord::state).isEqualTo(RecordState.COMPLETED);

        String lost = freshKey();
        AtomicBoolean armed = new AtomicBoolean(true);
        RemoteCache<String, StoredRecord> resending = sendingVersionedReplacesTwice(cache(), 2);
        InfinispanRecords losingAndResending = new InfinispanRecords(intercepted(resending, (method, args, send) -> {
            Object answer = send.call();
            if (method.getName().equals("putIfAbsent") && armed.compareAndSet(true, false)) {
                throw new TransportException("the answer was lost (test)", null);
            }
            return answer;
        }), Duration.ZERO);
        assertThat(losingAndResending.claim(lost, "fp", LONG, LONG)).as("a claim whose answer was lost, confirmed")
                .isInstanceOf(ClaimResult.Acquired.class);

        String never = freshKey();
        String neverOwner = ((ClaimResult.Acquired) store.claim(never, "fp", LONG, LONG)).owner();
        InfinispanRecords neverAcknowledged = new InfinispanRecords(sendingVersionedReplacesTwice(cache(),
                Integer.MAX_VALUE), Duration.ZERO);
        assertThat(neverAcknowledged.markExecuted(never, neverOwner, LONG, LONG)).as("no write of the mark acknowledged")
                .isFalse();
        assertThat(neverAcknowledged.complete(never, neverOwner, sampleOutcome(), LONG))
                .as("no write of the completion acknowledged").isFalse();
    }

    /**
     * A takeover whose write landed and whose answer was lost: the record is the taker's. It was a
     * 503, and every retry got 409 for one more lease (the record named an owner nobody had).
     */
    @Test
    void aTakeoverWhoseAnswerWasLostIsTheTakersClaim() throws Exception {
        String key = freshKey();
        acquire(key, "fp", Duration.ofSeconds(1), LONG);
        elapse(Duration.ofSeconds(1));
        AtomicBoolean armed = new AtomicBoolean(true);
        InfinispanRecords losing = new InfinispanRecords(intercepted(cache(), (method, args, send) -> {
            Object answer = send.call();
            if (method.getName().equals("replaceWithVersion") && armed.compareAndSet(true, false)) {
                throw new TransportException("the answer was lost (test)", null);
            }
            return answer;
        }), Duration.ZERO);

        ClaimResult retry = losing.claim(key, "fp", LONG, LONG);

        assertThat(retry).isInstanceOf(ClaimResult.Acquired.class);
        assertThat(((ClaimResult.Acquired) retry).takeover()).isTrue();
        assertThat(createStore().complete(key, ((ClaimResult.Acquired) retry).owner(), sampleOutcome(), LONG)).isTrue();
    }

    /**
     * A release whose remove the client sent twice (the first one's answer lost in a topology
     * change): the second found nothing to remove, and the release answered "not yours", though
     * the owner's record was gone (a support release reported the claim as not releasable).
     */
    @Test
    void aReleaseWhoseRemoveTheClientSentTwiceIsReleased() throws Exception {
        String key = freshKey();
        String owner = acquire(key, "fp", LONG, LONG);
        AtomicBoolean armed = new AtomicBoolean(true);
        InfinispanRecords resending = new InfinispanRecords(intercepted(cache(), (method, args, send) -> {
            Object answer = send.call();
            return method.getName().equals("removeWithVersion") && armed.compareAndSet(true, false) ? send.call() : answer;
        }), Duration.ZERO);

        assertThat(resending.release(key, owner)).isTrue();
        assertThat(createStore().find(key)).isEmpty();
    }

    /**
     * A claim that found a record, which was released before it could look again, writes its own
     * into the free key; that write landed and its answer was lost: the claim failed, and the key
     * held a record naming an owner nobody had, so every retry got 409 for a lease.
     */
    @Test
    void aClaimOfAKeyFreedMeanwhileWhoseWriteLandedWithItsAnswerLostIsTheClaimersClaim() throws Exception {
        String key = freshKey();
        String first = acquire(key, "fp", LONG, LONG);
        IdempotencyStore other = createStore();
        java.util.concurrent.atomic.AtomicInteger puts = new java.util.concurrent.atomic.AtomicInteger();
        InfinispanRecords losing = new InfinispanRecords(intercepted(cache(), (method, args, send) -> {
            if (!method.getName().equals("putIfAbsent")) {
                return send.call();
            }
            int put = puts.incrementAndGet();
            Object answer = send.call();
            if (put == 1) {
                assertThat(other.release(key, first)).isTrue(); // released before the claim reads again
            } else if (put == 2) {
                throw new TransportException("the answer was lost (test)", null);
            }
            return answer;
        }), Duration.ZERO);

        ClaimResult claim = losing.claim(key, "fp", LONG, LONG);

        assertThat(claim).isInstanceOf(ClaimResult.Acquired.class);
        assertThat(createStore().complete(key, ((ClaimResult.Acquired) claim).owner(), sampleOutcome(), LONG)).isTrue();
    }

    /**
     * A cache defined with a max-idle (an application's or an operator's cache, say
     * {@code <expiration max-idle="..."/>}) must not drop a record nobody read for that long: a
     * completed one lives for its retention, a claim for its lease and retention, or the key runs again.
     */
    @Test
    void aCachesMaxIdleCutsNoRecordShort() throws Exception {
        manager.administration().getOrCreateCache("idling", new StringConfiguration(
                "<distributed-cache mode=\"SYNC\" owners=\"2\"><encoding media-type=\"application/x-protostream\"/>"
                        + "<expiration max-idle=\"1000\"/></distributed-cache>"));
        Map<String, String> values = Map.of("idempotency.infinispan.cache", "idling");
        IdempotencyStore store = new InfinispanIdempotencyStore(new InfinispanConnection(manager,
                InfinispanSettings.load(key -> Optional.ofNullable(values.get(key)))));
        String completed = freshKey();
        String claimed = freshKey();
        String owner = ((ClaimResult.Acquired) store.claim(completed, "fp", LONG, LONG)).owner();
        assertThat(store.complete(completed, owner, sampleOutcome(), LONG)).isTrue();
        store.claim(claimed, "fp", LONG, LONG);

        elapse(Duration.ofMillis(2500)); // read by nobody for 2.5 max-idles

        assertThat(store.find(completed)).as("a completed record nobody read for a while")
                .get().extracting(IdempotencyRecord::state).isEqualTo(RecordState.COMPLETED);
        assertThat(store.claim(claimed, "fp", LONG, LONG)).as("a retry of a claim in its lease")
                .isInstanceOf(ClaimResult.Existing.class);
    }

    /**
     * Lifespans the server cannot keep as they are: below a millisecond (0 means the cache's default,
     * immortal on the cache the store creates) and beyond what it reports back in whole seconds as
     * an {@code int} (about 68 years: the entry reads as immortal, without its creation time, so its
     * lease could not be judged).
     */
    @Test
    void retentionsBelowAMillisecondOrBeyondTheServersRangeStillExpireAndLetLeasesEnd() throws Exception {
        IdempotencyStore store = createStore();
        String brief = freshKey();
        String owner = ((ClaimResult.Acquired) store.claim(brief, "fp", Duration.ofSeconds(1), LONG)).owner();
        assertThat(store.complete(brief, owner, sampleOutcome(), Duration.ofNanos(500_000))).isTrue();
        String longKept = freshKey();
        store.claim(longKept, "fp", Duration.ofSeconds(1), Duration.ofDays(25_000));
        RecordDetails kept = store.inspect(longKept).orElseThrow();
        assertThat(kept.claimedAt()).as("when the claim kept 25,000 days was made").isNotNull();
        assertThat(kept.expiresAt()).as("when it expires").isNotNull();

        elapse(Duration.ofMillis(1200));

        assertThat(store.find(brief)).as("a record kept for half a millisecond, 1.2 s later").isEmpty();
        ClaimResult retry = store.claim(longKept, "fp", LONG, LONG);
        assertThat(retry).as("the same request after the lease of a claim kept 25,000 days")
                .isInstanceOf(ClaimResult.Acquired.class);
        assertThat(((ClaimResult.Acquired) retry).takeover()).isTrue();
    }

    /**
     * A first execution's store work is the three round trips no owner-checked claim and completion
     * can do without (BENCHMARKS.md, the raw floor): the claim's {@code putIfAbsent}, and the
     * completion's {@code getWithMetadata} and {@code replaceWithVersion}. The claim's lease is in
     * its record, not in an entry of its own written first.
     */
    @Test
    void aFirstClaimAndItsCompletionAreThreeRoundTrips() {
        IdempotencyStore store = createStore();
        List<String> sent = new ArrayList<>();
        InfinispanRecords counted = new InfinispanRecords(recordingOperations(
                cache(), sent));
        String key = freshKey();

        String owner = ((ClaimResult.Acquired) counted.claim(key, "fp", LONG, LONG)).owner();
        assertThat(counted.complete(key, owner, sampleOutcome(), LONG)).isTrue();

        assertThat(sent).containsExactly("putIfAbsent", "getWithMetadata", "replaceWithVersion");
        assertThat(store.find(key)).get().extracting(IdempotencyRecord::state).isEqualTo(RecordState.COMPLETED);
    }

    /**
     * A claim whose write landed but whose answer was lost (the client's timeout) finds its own
     * record when it reads the key: the claim is acquired, not answered "in progress" by itself,
     * which would keep its own request out until its lease ended.
     */
    @Test
    void aClaimWhoseWriteLandedButWhoseAnswerWasLostIsAcquired() {
        IdempotencyStore store = createStore();
        List<String> sent = new ArrayList<>();
        InfinispanRecords losing = new InfinispanRecords(losingTheNextPutIfAbsentsAnswer(recordingOperations(cache(), sent),
                () -> null));
        String key = freshKey();

        ClaimResult claim = losing.claim(key, "fp", LONG, LONG);

        assertThat(claim).isInstanceOf(ClaimResult.Acquired.class);
        // a read does not tell whether the write reached the entry's backup owner: it is written again
        assertThat(sent).as("operations sent").containsSubsequence("putIfAbsent", "replaceWithVersion");
        assertThat(store.complete(key, ((ClaimResult.Acquired) claim).owner(), sampleOutcome(), LONG)).isTrue();
    }

    /**
     * The Hot Rod server's {@code replaceWithVersion} compares the version, then replaces by value
     * equality. A claim confirming its own write (its answer lost) writes its record again; had it
     * written the same bytes, landing between the two steps of a takeover of that claim, both
     * replaces would succeed and two callers would hold the claim (the review of stop 42 found it).
     * Every write of a record is bytes no earlier write of it had: a value-equality replace from
     * the bytes read before the confirmation no longer matches.
     */
    @Test
    void aClaimConfirmingItsOwnWriteWritesBytesNoEarlierWriteHad() throws Exception {
        List<byte[]> firstWrite = new ArrayList<>();
        String key = freshKey();
        InfinispanRecords losing = new InfinispanRecords(losingTheNextPutIfAbsentsAnswer(cache(),
                () -> firstWrite.add(bytes(cache().get(key)))));

        ClaimResult claim = losing.claim(key, "fp", LONG, LONG);

        assertThat(claim).isInstanceOf(ClaimResult.Acquired.class);
        assertThat(bytes(cache().get(key))).as("the record as the confirmation left it, against the first write")
                .isNotEqualTo(firstWrite.get(0));
        assertThat(cache().get(key).ownedBy(((ClaimResult.Acquired) claim).owner())).isTrue();
    }

    /** @return the bytes the client sends for the record, which the server compares */
    private static byte[] bytes(StoredRecord record) throws Exception {
        return manager.getMarshaller().objectToByteBuffer(record);
    }

    /**
     * The lease is judged from the record's creation time on one server's clock and the time now
     * on another's: a claim is taken over only the allowed skew after its lease
     * ({@code idempotency.infinispan.clock-skew}).
     */
    @Test
    void aClaimIsTakenOverOnlyTheAllowedClockSkewAfterItsLease() throws Exception {
        InfinispanRecords skewed = new InfinispanRecords(cache(), Duration.ofSeconds(2));
        String key = freshKey();
        skewed.claim(key, "fp", Duration.ofSeconds(1), LONG);

        elapse(Duration.ofSeconds(1));
        ClaimResult afterTheLease = skewed.claim(key, "fp", LONG, LONG);
        elapse(Duration.ofSeconds(2));
        ClaimResult afterTheSkewToo = skewed.claim(key, "fp", LONG, LONG);

        assertThat(afterTheLease).isInstanceOf(ClaimResult.Existing.class);
        assertThat(afterTheSkewToo).isInstanceOf(ClaimResult.Acquired.class);
    }

    /**
     * A key whose writes the servers refuse while its reads answer (its lock held after a server's
     * fault, as the fault campaign found; a timeout): a retry of a claim whose owner's lease is over
     * read the record and was told "in progress", {@code 409} for the claim's whole retention, and
     * the tiered store's front, never failing, answered so alone and never asked the database (the
     * campaign's key without an answer for a minute). The lease decides: within it the claim is in
     * progress; after it the retry's refused write is the store's failure (503 alone; the tiered
     * store's database decides).
     */
    @Test
    void aRetryOnAKeyWhoseWritesAreRefusedIsToldInProgressOnlyWithinTheLease() throws Exception {
        IdempotencyStore store = createStore();
        String running = freshKey();
        String abandoned = freshKey();
        store.claim(running, "fp", LONG, LONG);
        store.claim(abandoned, "fp", Duration.ofSeconds(1), LONG);
        Set<String> lockedKeys = Set.of(running, abandoned);
        InfinispanRecords locked = new InfinispanRecords(intercepted(cache(), (method, args, send) -> {
            if (WRITES.contains(method.getName()) && args != null && lockedKeys.contains(args[0])) {
                throw new TransportException("the key's lock is held (test): " + method.getName(), null);
            }
            return send.call();
        }), Duration.ZERO);
        elapse(Duration.ofSeconds(1));

        ClaimResult withinTheLease = locked.claim(running, "fp", LONG, LONG);
        assertThat(withinTheLease).as("its owner's lease runs").isInstanceOf(ClaimResult.Existing.class);
        assertThat(((ClaimResult.Existing) withinTheLease).record().state()).isEqualTo(RecordState.IN_PROGRESS);
        assertThatThrownBy(() -> locked.claim(abandoned, "fp", LONG, LONG))
                .as("its owner's lease is over, the takeover's write refused")
                .isInstanceOf(IdempotencyStoreException.class);
    }

    /** The cache's methods that write an entry, their key first. */
    private static final Set<String> WRITES = Set.of("put", "putIfAbsent", "replace", "replaceWithVersion", "remove",
            "removeWithVersion");

    /** A claim whose record names no lease (damaged, or a later version's) is never taken over: its owner may be running. */
    @Test
    void aClaimWhoseRecordNamesNoLeaseIsNeverTakenOver() {
        IdempotencyStore store = createStore();
        String key = freshKey();
        cache().put(key, new StoredRecord(StoredRecord.CLAIMED, "fp", "another-owner", null, null, null, null, null, null),
                1, TimeUnit.HOURS);

        ClaimResult claim = store.claim(key, "fp", LONG, LONG);

        assertThat(claim).isInstanceOf(ClaimResult.Existing.class);
        assertThat(((ClaimResult.Existing) claim).record().state()).isEqualTo(RecordState.IN_PROGRESS);
    }

    /**
     * A claim whose record names a lease the server's clock cannot add to (a damaged record, or one
     * of a later version meaning "no end"): never taken over. The sum overflowed, and the claim was
     * taken over at once while its owner ran: the key ran twice.
     */
    @Test
    void aClaimWhoseRecordNamesAnImpossibleLeaseIsNeverTakenOver() {
        IdempotencyStore store = createStore();
        for (long lease : new long[] {Long.MAX_VALUE, Long.MAX_VALUE - 1_000, -5_000}) {
            String key = freshKey();
            cache().put(key, new StoredRecord(StoredRecord.CLAIMED, "fp", "another-owner", null, null, null, null, lease,
                    null), 1, TimeUnit.HOURS);

            assertThat(store.claim(key, "fp", LONG, LONG)).as("a lease of %d ms", lease)
                    .isInstanceOf(ClaimResult.Existing.class);
        }
    }

    /**
     * A completed record whose status is out of HTTP's range (a damaged record): its outcome is
     * unknown, as for one without a status, and the key never runs again. Every claim and look-up
     * of it was a 503 (a store "not answering") for its whole retention.
     */
    @Test
    void aCompletedRecordWithAStatusOutOfRangeIsExecutedWithItsOutcomeUnknown() {
        IdempotencyStore store = createStore();
        String key = freshKey();
        cache().put(key, new StoredRecord(RecordState.COMPLETED.name(), "fp", "another-owner", 0, List.of(), null, false,
                null, null), 1, TimeUnit.HOURS);

        ClaimResult claim = store.claim(key, "fp", LONG, LONG);

        assertThat(claim).isInstanceOf(ClaimResult.Existing.class);
        assertThat(store.find(key)).isPresent();
    }

    /** @return the cache, each operation sent to the server named in {@code sent} */
    private static RemoteCache<String, StoredRecord> recordingOperations(RemoteCache<String, StoredRecord> cache,
            List<String> sent) {
        return intercepted(cache, (method, args, send) -> {
            if (!method.getName().equals("getName")) {
                sent.add(method.getName());
            }
            return send.call();
        });
    }

    /**
     * @param landed what runs once the next {@code putIfAbsent} has landed, before its answer is lost
     * @return the cache, but the answer of its next {@code putIfAbsent} is lost (the client's timeout)
     */
    private static RemoteCache<String, StoredRecord> losingTheNextPutIfAbsentsAnswer(RemoteCache<String, StoredRecord> cache,
            Callable<?> landed) {
        AtomicBoolean armed = new AtomicBoolean(true);
        return intercepted(cache, (method, args, send) -> {
            Object answer = send.call();
            if (method.getName().equals("putIfAbsent") && armed.compareAndSet(true, false)) {
                landed.call();
                throw new TransportException("the answer was lost (test)", null);
            }
            return answer;
        });
    }

    /** @return the cache, but its next versioned replace is sent twice and answered by the second */
    private static RemoteCache<String, StoredRecord> sendingTheNextVersionedReplaceTwice(RemoteCache<String, StoredRecord> cache) {
        AtomicBoolean armed = new AtomicBoolean(true);
        return intercepted(cache, (method, args, send) -> {
            Object answer = send.call();
            return method.getName().equals("replaceWithVersion") && armed.compareAndSet(true, false)
                    ? send.call() : answer;
        });
    }

    /** @return the cache, but its next {@code times} versioned replaces are each sent twice and answered by the second */
    private static RemoteCache<String, StoredRecord> sendingVersionedReplacesTwice(RemoteCache<String, StoredRecord> cache,
            int times) {
        java.util.concurrent.atomic.AtomicInteger left = new java.util.concurrent.atomic.AtomicInteger(times);
        return intercepted(cache, (method, args, send) -> {
            Object answer = send.call();
            return method.getName().equals("replaceWithVersion") && left.getAndDecrement() > 0 ? send.call() : answer;
        });
    }

    /** What a test does with one call of the cache's methods, given its arguments: {@code send} makes the call. */
    interface Interception {
        Object handle(Method method, Object[] args, Callable<Object> send) throws Exception;
    }

    /** @return the cache, each call (also of the caches {@code withFlags} returns) handled by {@code interception} */
    @SuppressWarnings("unchecked")
    private static RemoteCache<String, StoredRecord> intercepted(RemoteCache<String, StoredRecord> cache,
            Interception interception) {
        InvocationHandler handler = (proxy, method, args) -> {
            if (method.getName().equals("withFlags")) {
                return intercepted((RemoteCache<String, StoredRecord>) invoke(cache, method, args), interception);
            }
            return interception.handle(method, args, () -> invoke(cache, method, args));
        };
        return (RemoteCache<String, StoredRecord>) Proxy.newProxyInstance(RemoteCache.class.getClassLoader(),
                new Class<?>[] {RemoteCache.class}, handler);
    }

    private static Object invoke(RemoteCache<String, StoredRecord> cache, Method method, Object[] args) throws Exception {
        try {
            return method.invoke(cache, args);
        } catch (InvocationTargetException e) {
            throw e.getCause() instanceof Exception cause ? cause : e;
        }
    }

    /** @return the store's cache, created first when no test did yet */
    private static RemoteCache<String, StoredRecord> cache() {
        connection.records();
        return manager.getCache(InfinispanSettings.load(k -> Optional.empty()).cacheName());
    }

    @Override
    protected IdempotencyStore createStore() {
        return new InfinispanIdempotencyStore(connection);
    }
}
