package dev.idempotency.jpa;

import static dev.idempotency.jpa.ZoneGap.notAfter;
import static dev.idempotency.jpa.ZoneGap.notBefore;

import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.UnaryOperator;
import java.util.logging.Level;
import java.util.logging.Logger;

import javax.sql.DataSource;

import jakarta.persistence.CacheRetrieveMode;
import jakarta.persistence.CacheStoreMode;
import jakarta.persistence.EntityManager;
import jakarta.persistence.FlushModeType;
import jakarta.persistence.PersistenceException;

import dev.idempotency.spi.ClaimResult;
import dev.idempotency.spi.IdempotencyRecord;
import dev.idempotency.spi.IdempotencyStoreException;
import dev.idempotency.spi.RecordDetails;
import dev.idempotency.spi.RecordState;
import dev.idempotency.spi.StoredOutcome;
import dev.idempotency.spi.support.OwnerTokens;

/**
 * The JPA store's logic, free of any container: claims race on the primary key (an INSERT in a
 * transaction of its own), completion and release are owner-checked UPDATE/DELETE statements.
 * Every expiry is judged against the database's clock in UTC ({@link DatabaseClock}).
 *
 * <p><b>A claim's row.</b> An in-progress row has two ends: {@code lease_end}, after which a
 * claim with the <em>same</em> fingerprint takes it over (an UPDATE guarded by the row's version
 * and its fingerprint), and {@code expires_at}, the end of its retention (the later of lease and
 * retention), until which it binds the key to its fingerprint: a claim with another fingerprint
 * gets the in-progress record, with the first fingerprint. Only once {@code expires_at} passed is
 * the row free, overwritten by any claim. In-progress rows written before claims recorded their
 * retention have {@code expires_at} NULL: their lease end is their end.
 *
 * <p><b>Reads.</b> Every read of a row goes to the database: past any second-level (shared) cache,
 * which a unit with {@code shared-cache-mode ALL} keeps even of this {@code @Cacheable(false)}
 * entity (other nodes change rows by statements this node's cache never sees), and, after a lost
 * takeover race, in a transaction of its own, since under REPEATABLE READ (MariaDB's and MySQL's
 * default) the losing transaction would see the row as it first read it.
 *
 * <p><b>Owners.</b> {@link #complete}, {@link #markExecuted} and {@link #release} check the owner
 * token and the state, not the lease: an owner nobody took over keeps its claim after its lease,
 * until the row's retention ends.
 */
public final class JpaRecords {

    private static final Logger LOG = Logger.getLogger(JpaRecords.class.getName());

    static final String IN_PROGRESS = "IN_PROGRESS";
    static final String EXECUTED = "EXECUTED";
    static final String COMPLETED = "COMPLETED";

    /**
     * The purge's condition: past the retention, or (an in-progress row without a recorded
     * retention) abandoned for long enough after its lease.
     */
    private static final String DEAD = " (r.state IN (:completed, :executed, :inProgress) AND r.expiresAt <= :now)"
            + " OR (r.state = :inProgress AND r.expiresAt IS NULL AND r.leaseEnd <= :abandonedBefore)";

    /** A claim that keeps losing races (insert refused, row gone on read, takeover lost) gives up after this many rounds. */
    private static final int CLAIM_ROUNDS = 5;
    /** The most keys one purge DELETE names. */
    private static final int DELETE_SLICE = 1_000;

    /** Hints of every read: the database's row, never a second-level cache's copy, which is not updated either. */
    private static final Map<String, Object> FROM_DATABASE = Map.of(
            "jakarta.persistence.cache.retrieveMode", CacheRetrieveMode.BYPASS,
            "jakarta.persistence.cache.storeMode", CacheStoreMode.BYPASS);

    /**
     * What a claim's transaction answers when its takeover UPDATE matched no row: another claim
     * changed the row since it was read. The row is read again in a new transaction (a new round).
     */
    private static final ClaimResult TAKEOVER_LOST = new ClaimResult.Acquired("takeover lost", false);

    private final RecordTransactions transactions;
    private final DatabaseProduct product = new DatabaseProduct();
    private final DatabaseClock clock;
    private final InsertIfAbsent insertIfAbsent = new InsertIfAbsent(product);
    private final SameDatabase sameDatabase = new SameDatabase();

    /**
     * For tests: runs in a claim's transaction after it read the key's row and before its takeover
     * UPDATE, so that a test can let another claim win the row in between.
     */
    volatile Runnable beforeTakeover = () -> { };

    /** How long a takeover's UPDATE may take before its ends are set again from the time after it. */
    private static final Duration WAITED = Duration.ofMillis(100);

    /**
     * @param transactions where the work runs
     */
    public JpaRecords(RecordTransactions transactions) {
        this.transactions = transactions;
        this.clock = new DatabaseClock(product);
    }

    /**
     * For tests: each reading of the database's time passes through {@code moved}, which may move
     * it elsewhere (to a night when clocks change).
     *
     * @param transactions where the work runs
     * @param moved applied to each reading of the database's time
     */
    JpaRecords(RecordTransactions transactions, UnaryOperator<LocalDateTime> moved) {
        this.transactions = transactions;
        this.clock = new DatabaseClock(product, moved);
    }

    /**
     * For tests: the database's time is carried forward on a monotonic clock the test drives, so
     * that a lease runs out without waiting for it.
     *
     * @param transactions where the work runs
     * @param nanoClock the monotonic clock ({@link System#nanoTime} plus what the test let pass)
     */
    JpaRecords(RecordTransactions transactions, LongSupplier nanoClock) {
        this.transactions = transactions;
        this.clock = new DatabaseClock(product, nanoClock);
    }

    /**
     * For tests: a node whose monotonic and wall clocks the test drives apart (a suspend stops the
     * monotonic one).
     *
     * @param transactions where the work runs
     * @param nanoClock the monotonic clock
     * @param wallClock the wall clock, in milliseconds
     */
    JpaRecords(RecordTransactions transactions, LongSupplier nanoClock, LongSupplier wallClock) {
        this.transactions = transactions;
        this.clock = new DatabaseClock(product, nanoClock, wallClock);
    }

    /**
     * A claim whose record is kept for its lease only: {@code claim(key, fingerprint, lease, lease)}.
     *
     * @param key the scoped, hashed key
     * @param fingerprint the request's fingerprint
     * @param lease the lease, and the record's retention
     * @return see {@link dev.idempotency.spi.IdempotencyStore#claim(String, String, Duration, Duration)}
     */
    public ClaimResult claim(String key, String fingerprint, Duration lease) {
        return claim(key, fingerprint, lease, lease);
    }

    /**
     * See {@link dev.idempotency.spi.IdempotencyStore#claim(String, String, Duration, Duration)}:
     * the row records its lease end and, as {@code expires_at}, the end of its retention (the later
     * of the two).
     *
     * @param key the scoped, hashed key
     * @param fingerprint the request's fingerprint
     * @param lease how long the claim stays in progress before a claim with the same fingerprint takes it over
     * @param retention how long the row binds the key to its fingerprint if it is never completed
     * @return the claim acquired, or the live record that holds the key
     */
    public ClaimResult claim(String key, String fingerprint, Duration lease, Duration retention) {
        Duration kept = retention.compareTo(lease) > 0 ? retention : lease;
        clock.resolve(transactions);
        insertIfAbsent.resolve(transactions);
        RuntimeException lastFailure = null;
        boolean rowMet = false;
        // The owner tokens of this call's writes (inserts, takeovers), a fresh one each (a row deleted
        // and inserted again is told apart from the one a takeover read by its owner only), each with
        // whether it took a live claim over: a write that committed with its answer lost (a connection
        // reset after the commit) is this call's claim when a later round meets its row. Rounds may
        // overlap: one timed out on the store's own thread may still commit.
        Map<String, Boolean> mine = new ConcurrentHashMap<>();
        Optional<DataSource> alone = autoCommit();
        if (alone.isPresent()) {
            LocalDateTime now = clock.now();
            LocalDateTime ends = clock.notBehind(now);
            String owner = OwnerTokens.next();
            mine.put(owner, false);
            try {
                if (InsertIfAbsent.insert(alone.get(), key, fingerprint, owner, now, ends.plus(lease), ends.plus(kept))) {
                    return new ClaimResult.Acquired(owner, false);
                }
                rowMet = true; // the key has a row: a duplicate or a replay reads it, a takeover needs a round
                IdempotencyRecordEntity row = AutoCommitRead.row(alone.get(), key);
                LocalDateTime read = clock.now();
                if (row != null && answeredAsItIs(row, fingerprint, read)) {
                    return new ClaimResult.Existing(toRecord(row, read));
                }
            } catch (SQLException | RuntimeException e) {
                // Nothing known to be inserted: the rounds below claim in transactions, and meet
                // the row if this statement did commit it.
                lastFailure = new IdempotencyStoreException("the claim's insert, or its read of the row it met, failed", e);
            }
        }
        for (int round = 0; round < CLAIM_ROUNDS; round++) {
            if (round > 0 || !rowMet) {
                try {
                    ClaimResult result = transactions.inNewTransaction(
                        em -> insert(em, key, fingerprint, lease, kept, mine));
                    if (result != null && result != TAKEOVER_LOST) {
                        return result;
                    }
                    // the row the insert met was gone when read (released, purged), or another claim
                    // changed it first: claim again, reading it afresh
                    continue;
                } catch (OwnTransactionsExhausted busy) {
                    throw busy;
                } catch (RuntimeException insertRefused) {
                    // Most likely a concurrent claim inserted the key first (unique violation): the
                    // row tells, in a new transaction.
                    lastFailure = insertRefused;
                }
            }
            ClaimResult existing;
            int writesBefore = mine.size();
            try {
                existing = transactions.inNewTransaction(em -> existingOrTakeover(em, key, fingerprint, lease, kept, mine));
            } catch (OwnTransactionsExhausted busy) {
                throw busy;
            } catch (RuntimeException e) {
                if (mine.size() == writesBefore) {
                    throw new IdempotencyStoreException("claim failed: the database did not answer", e);
                }
                // a takeover or an overwrite was written, and may have committed with its answer
                // lost: the next round reads the row, and finds it this call's if it did
                lastFailure = e;
                continue;
            }
            if (existing != null && existing != TAKEOVER_LOST) {
                return existing;
            }
            // the row vanished between the two (released, purged), or another claim changed it first: claim again
        }
        throw new IdempotencyStoreException("claim failed: the insert was refused or the key's row kept changing"
                + " under the claim, " + CLAIM_ROUNDS + " times", lastFailure);
    }

    /**
     * @return the store's datasource where one statement may commit on its own: on PostgreSQL (whose
     *     statements {@link InsertIfAbsent} and {@link AutoCommitCompletion} are), on a thread
     *     without a transaction; else empty
     */
    private Optional<DataSource> autoCommit() {
        if (!insertIfAbsent.available()) {
            return Optional.empty();
        }
        Optional<DataSource> offered = transactions.autoCommitDataSource();
        return offered.filter(dataSource -> sameDatabase.of(dataSource, transactions));
    }

    /**
     * @param mine the owner tokens of this claim's writes, this one's added before it is made
     * @return the claim's result, or null when the key's row vanished between the insert and the read
     */
    private ClaimResult insert(EntityManager em, String key, String fingerprint, Duration lease, Duration kept,
            Map<String, Boolean> mine) {
        if (insertIfAbsent.available()) {
            // one round trip for a first claim; a retry's row is read after the insert met it
            LocalDateTime now = clock.now();
            LocalDateTime ends = clock.notBehind(now);
            String owner = OwnerTokens.next();
            mine.put(owner, false);
            if (InsertIfAbsent.insert(em, key, fingerprint, owner, notAfter(now), notBefore(ends.plus(lease)),
                    notBefore(ends.plus(kept)))) {
                return new ClaimResult.Acquired(owner, false);
            }
            return existingOrTakeover(em, key, fingerprint, lease, kept, mine);
        }
        // A row usually exists for a retry: read it first, so that only a true race meets the
        // unique constraint (and the provider's log of the violation).
        ClaimResult existing = existingOrTakeover(em, key, fingerprint, lease, kept, mine);
        if (existing != null) {
            return existing; // TAKEOVER_LOST too: the row exists, the next round reads it afresh
        }
        LocalDateTime now = clock.now();
        LocalDateTime ends = clock.notBehind(now);
        String owner = OwnerTokens.next();
        mine.put(owner, false);
        em.persist(new IdempotencyRecordEntity(key, fingerprint, owner, notAfter(now), notBefore(ends.plus(lease)),
                notBefore(ends.plus(kept))));
        em.flush();
        return new ClaimResult.Acquired(owner, false);
    }

    /**
     * @param mine the owner tokens of this claim's writes, each with whether it took a live claim over;
     *     one that failed may have committed (its row, in progress within its lease, is then the
     *     caller's claim); this call's takeover adds its own before it is made
     * @return the live record; a takeover of a claim whose lease ran out, by the same request; the
     *     row overwritten once its retention ended, by any request; {@link #TAKEOVER_LOST} when
     *     another claim changed the row between its read and the takeover; or null when there is no row
     */
    private ClaimResult existingOrTakeover(EntityManager em, String key, String fingerprint, Duration lease,
            Duration kept, Map<String, Boolean> mine) {
        LocalDateTime now = clock.now();
        IdempotencyRecordEntity row = read(em, key);
        if (row == null) {
            return null;
        }
        Boolean tookOver = IN_PROGRESS.equals(row.state()) && row.leaseEnd().isAfter(now) ? mine.get(row.owner()) : null;
        if (tookOver != null) {
            // this claim's own insert or takeover, committed with its answer lost: the claim is the
            // caller's (once its lease ran out, a retry elsewhere may have it: taken over below as any other's)
            return new ClaimResult.Acquired(row.owner(), tookOver);
        }
        if (answeredAsItIs(row, fingerprint, now)) {
            return new ClaimResult.Existing(toRecord(row, now));
        }
        String owner = OwnerTokens.next();
        LocalDateTime ends = clock.notBehind(now);
        int taken;
        boolean live = !expired(row, now);
        mine.put(owner, live);
        // The row read is told by its version and its owner: a row deleted (released, purged) and
        // inserted again starts at the same version, and only its owner token is new.
        if (live) {
            // the same request again after the lease: it takes the claim over, the old owner loses it
            beforeTakeover.run();
            taken = em.createQuery("UPDATE IdempotencyRecordEntity r SET r.owner = :owner, r.leaseEnd = :leaseEnd,"
                    + " r.expiresAt = :expiresAt, r.createdAt = :now, r.updatedAt = :now, r.version = r.version + 1"
                    + " WHERE r.key = :key AND r.version = :version AND r.owner = :readOwner AND r.state = :inProgress"
                    + " AND r.fingerprint = :fingerprint")
                    .setParameter("owner", owner).setParameter("leaseEnd", notBefore(ends.plus(lease)))
                    .setParameter("expiresAt", notBefore(ends.plus(kept))).setParameter("now", notAfter(now)).setParameter("key", key)
                    .setParameter("version", row.version()).setParameter("readOwner", row.owner())
                    .setParameter("inProgress", IN_PROGRESS)
                    .setParameter("fingerprint", fingerprint)
                    .executeUpdate();
        } else {
            // retention over: the key is free for any request
            beforeTakeover.run();
            taken = em.createQuery("UPDATE IdempotencyRecordEntity r SET r.state = :state, r.owner = :owner,"
                    + " r.fingerprint = :fingerprint, r.leaseEnd = :leaseEnd, r.expiresAt = :expiresAt,"
                    + " r.outcomeStatus = NULL, r.outcomeHeaders = NULL, r.outcomeBody = NULL, r.bodyStored = NULL,"
                    + " r.createdAt = :now, r.updatedAt = :now, r.version = r.version + 1"
                    + " WHERE r.key = :key AND r.version = :version AND r.owner = :readOwner")
                    .setParameter("state", IN_PROGRESS).setParameter("owner", owner).setParameter("fingerprint", fingerprint)
                    .setParameter("leaseEnd", notBefore(ends.plus(lease))).setParameter("expiresAt", notBefore(ends.plus(kept)))
                    .setParameter("now", notAfter(now)).setParameter("key", key).setParameter("version", row.version())
                    .setParameter("readOwner", row.owner())
                    .executeUpdate();
        }
        if (taken == 1) {
            endsFromNow(em, key, owner, now, lease, kept);
            // a takeover when a live in-progress claim (of a crashed or slow owner) was replaced;
            // a row past its retention was free: no takeover
            return new ClaimResult.Acquired(owner, live);
        }
        // Lost: another claim changed the row since it was read. Not read again here: under
        // REPEATABLE READ this transaction would see its first snapshot of the row, and the
        // winner's claim may be over by now (released, expired); a new round reads it afresh.
        return TAKEOVER_LOST;
    }

    /**
     * Sets a row just taken over's ends again from the time now, where its UPDATE waited (for the
     * row's lock: a slow owner's transaction that held it, having marked its work, until it rolled
     * back): its ends were worked out before the wait, which would otherwise come out of the new
     * lease, and a retry could take the claim over while it still runs. The row is this claim's and
     * locked by its transaction: no version is needed. Costs a statement only after such a wait.
     */
    private void endsFromNow(EntityManager em, String key, String owner, LocalDateTime before, Duration lease,
            Duration kept) {
        LocalDateTime after = clock.now();
        if (!after.isAfter(before.plus(WAITED))) {
            return;
        }
        LocalDateTime ends = clock.notBehind(after);
        em.createQuery("UPDATE IdempotencyRecordEntity r SET r.leaseEnd = :leaseEnd, r.expiresAt = :expiresAt"
                + " WHERE r.key = :key AND r.owner = :owner")
                .setParameter("leaseEnd", notBefore(ends.plus(lease))).setParameter("expiresAt", notBefore(ends.plus(kept)))
                .setParameter("key", key).setParameter("owner", owner)
                .executeUpdate();
    }

    /**
     * @return whether a claim meeting this row is answered with it: the row is live, and not an
     *     in-progress claim whose lease ended that the same request takes over (an abandoned claim
     *     of another request still binds its key, which is refused as reused)
     */
    private static boolean answeredAsItIs(IdempotencyRecordEntity row, String fingerprint, LocalDateTime now) {
        boolean abandoned = IN_PROGRESS.equals(row.state()) && !row.leaseEnd().isAfter(now);
        return !expired(row, now) && !(abandoned && row.fingerprint().equals(fingerprint));
    }

    /** @return the key's row as the database holds it, past any second-level cache; null when there is none */
    private static IdempotencyRecordEntity read(EntityManager em, String key) {
        return em.find(IdempotencyRecordEntity.class, key, FROM_DATABASE);
    }

    /**
     * See {@link dev.idempotency.spi.IdempotencyStore#complete}: joins the caller's transaction.
     * The owner's in-progress claim (whatever its lease, until its retention ends) or executed
     * record becomes COMPLETED. The caller's pending changes are flushed first (see {@link #markExecuted}).
     *
     * @param key the scoped, hashed key
     * @param owner the owner token returned by {@link #claim}
     * @param outcome what to replay to retries
     * @param retention how long to keep the completed record
     * @return whether the caller still owned the claim, and the row is now COMPLETED
     * @throws PersistenceException (or another runtime exception of the provider's) when flushing the
     *     caller's own pending changes fails: the application's error, thrown as it is
     * @throws IdempotencyStoreException when the store's statement fails
     */
    public boolean complete(String key, String owner, StoredOutcome outcome, Duration retention) {
        clock.ensureResolved(transactions);
        Optional<DataSource> alone = autoCommit();
        if (alone.isPresent()) {
            // no caller's transaction to join (an HTTP request's completion, after the method's ended)
            LocalDateTime now = clock.now();
            try {
                return AutoCommitCompletion.complete(alone.get(), key, owner, outcome, now,
                        clock.notBehind(now).plus(retention));
            } catch (SQLException | RuntimeException e) {
                // Tried again in a transaction of the store's own: if this statement did commit,
                // the row is COMPLETED by this owner and the second matches nothing, which is then
                // this call's completion.
                return inCallerTransaction("complete", em -> completeInTransaction(em, key, owner, outcome, retention)
                        || heldBy(em, key, owner, COMPLETED, clock.now()));
            }
        }
        return inCallerTransaction("complete", em -> completeInTransaction(em, key, owner, outcome, retention));
    }

    private boolean completeInTransaction(EntityManager em, String key, String owner, StoredOutcome outcome,
            Duration retention) {
        LocalDateTime now = clock.now();
        LocalDateTime expiresAt = clock.notBehind(now).plus(retention);
        return em.createQuery("UPDATE IdempotencyRecordEntity r SET r.state = :completed,"
                + " r.expiresAt = :expiresAt, r.outcomeStatus = :status, r.outcomeHeaders = :headers,"
                + " r.outcomeBody = :body, r.bodyStored = :bodyStored, r.updatedAt = :now, r.version = r.version + 1"
                + " WHERE r.key = :key AND r.owner = :owner AND (((r.state = :inProgress OR r.state = :executed)"
                + " AND r.expiresAt > :now) OR (r.state = :inProgress AND r.expiresAt IS NULL AND r.leaseEnd > :now))")
                .setParameter("completed", COMPLETED).setParameter("expiresAt", notBefore(expiresAt))
                .setParameter("status", outcome.status()).setParameter("headers", encode(outcome.headers()))
                .setParameter("body", outcome.body()).setParameter("bodyStored", outcome.bodyStored())
                .setParameter("now", notAfter(now)).setParameter("key", key).setParameter("owner", owner)
                .setParameter("inProgress", IN_PROGRESS).setParameter("executed", EXECUTED)
                .executeUpdate() == 1;
    }

    /**
     * See {@link dev.idempotency.spi.IdempotencyStore#markExecuted}: joins the caller's
     * transaction, so that the mark commits with the business rows or not at all. The owner's
     * in-progress claim (whatever its lease, until its retention ends) becomes EXECUTED.
     *
     * <p>On the application's entity manager ({@link IdempotencyPersistence}), the caller's
     * transaction usually holds business changes not yet flushed. They are flushed first, on their
     * own (when the entity manager is joined to a transaction and its flush mode is AUTO, under
     * which the store's UPDATE would flush them anyway): a failure of that flush (a unique or
     * not-null violation of the application's rows) is the application's error and is thrown as it
     * is, not reported as a store outage (which the library answers with 503 and a retry would meet
     * again). Under flush mode COMMIT the application's changes are left to the commit.
     *
     * @param key the scoped, hashed key
     * @param owner the owner token returned by {@link #claim}
     * @param lease how long to wait for the outcome before reporting it lost
     * @param retention how long to keep the row if the outcome never comes
     * @return whether the caller owned the in-progress claim, and the row is now EXECUTED (or already
     *     was, marked by this owner: nothing changes)
     * @throws PersistenceException (or another runtime exception of the provider's) when flushing the
     *     caller's own pending changes fails: the application's error, thrown as it is; its
     *     transaction is to roll back
     * @throws IdempotencyStoreException when the store's statement fails
     */
    public boolean markExecuted(String key, String owner, Duration lease, Duration retention) {
        clock.ensureResolved(transactions);
        return inCallerTransaction("marking the work executed", em -> {
            LocalDateTime now = clock.now();
            LocalDateTime notBehind = clock.notBehind(now);
            return em.createQuery("UPDATE IdempotencyRecordEntity r SET r.state = :executed,"
                    + " r.leaseEnd = :leaseEnd, r.expiresAt = :expiresAt, r.updatedAt = :now, r.version = r.version + 1"
                    + " WHERE r.key = :key AND r.owner = :owner AND r.state = :inProgress"
                    + " AND (r.expiresAt > :now OR (r.expiresAt IS NULL AND r.leaseEnd > :now))")
                    .setParameter("executed", EXECUTED).setParameter("leaseEnd", notBefore(notBehind.plus(lease)))
                    .setParameter("expiresAt", notBefore(notBehind.plus(retention))).setParameter("now", notAfter(now))
                    .setParameter("key", key).setParameter("owner", owner).setParameter("inProgress", IN_PROGRESS)
                    .executeUpdate() == 1 || heldBy(em, key, owner, EXECUTED, now);
        });
    }

    /**
     * @return whether the live row is in this state by this owner already: a repeated mark, or a
     *     completion whose first statement committed with its answer lost; either changes nothing
     */
    private static boolean heldBy(EntityManager em, String key, String owner, String state, LocalDateTime now) {
        return em.createQuery("SELECT COUNT(r) FROM IdempotencyRecordEntity r WHERE r.key = :key AND r.owner = :owner"
                + " AND r.state = :state AND r.expiresAt > :now", Long.class)
                .setParameter("key", key).setParameter("owner", owner).setParameter("state", state)
                .setParameter("now", notAfter(now)).getSingleResult() > 0;
    }

    /**
     * Runs the store's statement in the caller's transaction, after flushing the caller's pending
     * changes: a failure of that flush is the application's and comes out as it is; any other
     * failure is the store's ({@link IdempotencyStoreException}).
     */
    private boolean inCallerTransaction(String operation, Function<EntityManager, Boolean> statement) {
        RuntimeException[] applicationFailure = new RuntimeException[1];
        try {
            return transactions.inCallerTransaction(em -> {
                try {
                    flushCallersChanges(em);
                } catch (RuntimeException e) {
                    applicationFailure[0] = e;
                    throw e;
                }
                return statement.apply(em);
            });
        } catch (RuntimeException e) {
            RuntimeException application = applicationFailure[0];
            if (application != null) {
                if (!causedBy(e, application)) {
                    application.addSuppressed(e); // what the transaction's end made of it
                }
                throw application;
            }
            if (e instanceof OwnTransactionsExhausted busy) {
                throw busy;
            }
            throw new IdempotencyStoreException(operation + " failed: the database did not answer", e);
        }
    }

    private static boolean causedBy(Throwable failure, Throwable cause) {
        return Causes.find(failure, t -> t == cause).isPresent();
    }

    /**
     * Flushes what the caller's persistence context holds, where the store's statement would
     * (flush mode AUTO, in a transaction): EclipseLink flushes the whole context before a JPQL
     * UPDATE, Hibernate only what touches the statement's table, so the explicit flush also makes
     * both behave alike. A context with nothing pending flushes nothing.
     */
    private static void flushCallersChanges(EntityManager em) {
        if (em.getFlushMode() == FlushModeType.AUTO && em.isJoinedToTransaction()) {
            em.flush();
        }
    }

    /**
     * See {@link dev.idempotency.spi.IdempotencyStore#release}: in a transaction of its own. The
     * owner's in-progress claim (whatever its lease, until its retention ends) or executed record is deleted.
     *
     * @param key the scoped, hashed key
     * @param owner the owner token returned by {@link #claim}
     * @return whether the caller owned the claim, and its row is deleted
     */
    public boolean release(String key, String owner) {
        clock.resolve(transactions);
        try {
            return transactions.inNewTransaction(em -> {
                LocalDateTime now = clock.now();
                // An EXECUTED record too: its owner releases it only when the work's transaction rolled back.
                return em.createQuery("DELETE FROM IdempotencyRecordEntity r"
                        + " WHERE r.key = :key AND r.owner = :owner AND (((r.state = :inProgress OR r.state = :executed)"
                        + " AND r.expiresAt > :now) OR (r.state = :inProgress AND r.expiresAt IS NULL AND r.leaseEnd > :now))")
                        .setParameter("key", key).setParameter("owner", owner).setParameter("inProgress", IN_PROGRESS)
                        .setParameter("executed", EXECUTED).setParameter("now", notAfter(now))
                        .executeUpdate() == 1;
            });
        } catch (OwnTransactionsExhausted busy) {
            throw busy;
        } catch (RuntimeException e) {
            throw new IdempotencyStoreException("release failed: the database did not answer", e);
        }
    }

    /**
     * See {@link dev.idempotency.spi.IdempotencyStore#find}.
     *
     * @param key the scoped, hashed key
     * @return the live record, or empty when there is none or it has expired
     */
    public Optional<IdempotencyRecord> find(String key) {
        return live("find", key, (row, now) -> toRecord(row, now));
    }

    /**
     * See {@link dev.idempotency.spi.IdempotencyStore#inspect}: the row's times, on the database's clock.
     *
     * @param key the scoped, hashed key
     * @return the live record and its times, or empty when there is none or it has expired
     */
    public Optional<RecordDetails> inspect(String key) {
        return live("inspect", key, (row, now) -> {
            IdempotencyRecord record = toRecord(row, now);
            boolean leased = record.state() == RecordState.IN_PROGRESS || record.state() == RecordState.EXECUTED;
            LocalDateTime expires = row.expiresAt() != null ? row.expiresAt() : row.leaseEnd();
            return new RecordDetails(record, utc(row.createdAt()), leased ? utc(row.leaseEnd()) : null, utc(expires));
        });
    }

    /** @return the view of the key's live row, read in a transaction of its own */
    private <T> Optional<T> live(String operation, String key, BiFunction<IdempotencyRecordEntity, LocalDateTime, T> view) {
        clock.resolve(transactions);
        insertIfAbsent.resolve(transactions);
        Optional<DataSource> alone = autoCommit();
        if (alone.isPresent()) {
            try {
                IdempotencyRecordEntity row = AutoCommitRead.row(alone.get(), key);
                LocalDateTime now = clock.now();
                return row == null || expired(row, now) ? Optional.empty() : Optional.of(view.apply(row, now));
            } catch (SQLException | RuntimeException e) {
                // read again in a transaction of the store's own, which meets the same outage or answers
                LOG.log(Level.FINE, "a look-up's query failed; it runs again in a transaction", e);
            }
        }
        try {
            return transactions.inNewTransaction(em -> {
                LocalDateTime now = clock.now();
                IdempotencyRecordEntity row = read(em, key);
                return row == null || expired(row, now) ? Optional.<T>empty() : Optional.of(view.apply(row, now));
            });
        } catch (OwnTransactionsExhausted busy) {
            throw busy;
        } catch (RuntimeException e) {
            throw new IdempotencyStoreException(operation + " failed: the database did not answer", e);
        }
    }

    private static Instant utc(LocalDateTime time) {
        return time == null ? null : time.toInstant(ZoneOffset.UTC);
    }

    /**
     * Deletes one batch of dead records: completed, executed and in-progress ones past their
     * retention ({@code expires_at}), and in-progress claims written before claims recorded their
     * retention ({@code expires_at} NULL) whose lease ended more than {@code abandonedAfter} ago. An
     * in-progress claim whose lease ended but whose retention did not is kept: it still binds its key
     * to its request. A live record is never deleted: the DELETE repeats the conditions, so several
     * nodes purging at once only share the work.
     *
     * @param batchSize the most rows deleted
     * @param abandonedAfter how long after its lease ended an in-progress claim without a recorded
     *     retention counts as abandoned
     * @return how many rows were deleted
     */
    public int purgeBatch(int batchSize, Duration abandonedAfter) {
        clock.resolve(transactions);
        try {
            return transactions.inNewTransaction(em -> {
                LocalDateTime now = clock.now();
                LocalDateTime abandonedBefore = now.minus(abandonedAfter);
                List<String> keys = em.createQuery("SELECT r.key FROM IdempotencyRecordEntity r WHERE" + DEAD, String.class)
                        .setParameter("completed", COMPLETED).setParameter("executed", EXECUTED)
                        .setParameter("inProgress", IN_PROGRESS)
                        .setParameter("now", notAfter(now)).setParameter("abandonedBefore", notAfter(abandonedBefore))
                        .setMaxResults(batchSize)
                        .getResultList();
                int deleted = 0;
                // The keys are bind values of the DELETE, which databases bound (PostgreSQL's driver at
                // 65,535 per statement, Oracle at 1,000 in one IN list): a batch is deleted in slices.
                for (int from = 0; from < keys.size(); from += DELETE_SLICE) {
                    deleted += em.createQuery("DELETE FROM IdempotencyRecordEntity r WHERE r.key IN :keys AND (" + DEAD + ")")
                            .setParameter("keys", keys.subList(from, Math.min(keys.size(), from + DELETE_SLICE)))
                            .setParameter("completed", COMPLETED).setParameter("executed", EXECUTED)
                            .setParameter("inProgress", IN_PROGRESS).setParameter("now", notAfter(now))
                            .setParameter("abandonedBefore", notAfter(abandonedBefore))
                            .executeUpdate();
                }
                return deleted;
            });
        } catch (RuntimeException e) {
            throw new IdempotencyStoreException("purge failed: the database did not answer", e);
        }
    }

    /**
     * Purges batch after batch until a batch comes back short, or {@code maxBatches} ran.
     *
     * @param batchSize rows per batch (and transaction)
     * @param abandonedAfter see {@link #purgeBatch}
     * @param maxBatches the most batches in one run, so that a run is bounded
     * @return how many rows were deleted
     */
    public int purge(int batchSize, Duration abandonedAfter, int maxBatches) {
        int deleted = 0;
        for (int batch = 0; batch < maxBatches; batch++) {
            int n = purgeBatch(batchSize, abandonedAfter);
            deleted += n;
            if (n < batchSize) {
                break;
            }
        }
        return deleted;
    }

    /** @return whether the row's retention is over (an in-progress row without one: its lease): the key is free */
    private static boolean expired(IdempotencyRecordEntity row, LocalDateTime now) {
        LocalDateTime end = row.expiresAt() != null ? row.expiresAt() : row.leaseEnd();
        return !end.isAfter(now);
    }

    private static IdempotencyRecord toRecord(IdempotencyRecordEntity row, LocalDateTime now) {
        if (IN_PROGRESS.equals(row.state())) {
            return IdempotencyRecord.inProgress(row.key(), row.fingerprint());
        }
        if (EXECUTED.equals(row.state())) {
            return row.leaseEnd().isAfter(now) ? IdempotencyRecord.executed(row.key(), row.fingerprint())
                    : IdempotencyRecord.outcomeLost(row.key(), row.fingerprint());
        }
        Map<String, List<String>> headers = decode(row.outcomeHeaders());
        StoredOutcome outcome = Boolean.TRUE.equals(row.bodyStored())
                ? StoredOutcome.of(row.outcomeStatus(), headers, row.outcomeBody() == null ? new byte[0] : row.outcomeBody())
                : StoredOutcome.withoutBody(row.outcomeStatus(), headers);
        return IdempotencyRecord.completed(row.key(), row.fingerprint(), outcome);
    }

    static String encode(Map<String, List<String>> headers) {
        StringBuilder text = new StringBuilder();
        headers.forEach((name, values) -> values.forEach(value -> text.append(name).append(':').append(value).append('\n')));
        return text.toString();
    }

    static Map<String, List<String>> decode(String text) {
        Map<String, List<String>> headers = new LinkedHashMap<>();
        if (text == null) {
            return headers;
        }
        for (String line : text.split("\n")) {
            int colon = line.indexOf(':');
            if (colon > 0) {
                headers.computeIfAbsent(line.substring(0, colon), n -> new java.util.ArrayList<>()).add(line.substring(colon + 1));
            }
        }
        return headers;
    }
}
