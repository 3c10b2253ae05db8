package dev.idempotency.it.campaign;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;

import dev.idempotency.it.support.Campaign;
import dev.idempotency.it.support.PaymentsDatabase;

/**
 * A fault campaign, the Jepsen way: two Payara Micro nodes, each with the sample app once per
 * store under test (its payments in PostgreSQL); clients that retry like real ones through both
 * nodes ({@link CampaignClients}); a nemesis that injects random faults meanwhile, seeded
 * ({@code -Dcampaign.seed=N} replays a schedule): {@code kill -9} of a node (started again on its
 * port), {@code SIGSTOP} of a node for longer than the lease (another node takes its claims over
 * while it is frozen mid-request, then it wakes and tries to commit), and each store's own kills
 * and pauses; and a checker that reads each store's whole history against its payment rows
 * afterwards ({@link HistoryChecker}). The stores share the nodes, so that their node faults are
 * paid for once.
 *
 * <p>Every build runs a short pass (every kind of fault once, in a random order, about two
 * minutes of load); the long campaign ({@code -Dit.long=true}) draws faults for ten minutes. Its
 * command and the figures are in docs/guarantees.md. {@code -Dcampaign.stores=jpa} (or
 * {@code redis}) runs one store only.
 */
class FaultCampaignIT {

    /** Short, so that a frozen node's claims are taken over within the pass. */
    static final Duration LEASE = Duration.ofSeconds(3);
    static final Duration LOAD = Campaign.seconds(30, 600);
    static final Duration QUIET = Duration.ofSeconds(3);
    static final int CLIENTS_PER_STORE = 4;
    static final double REUSE_SHARE = 0.1;

    @Test
    void faultsInjectedAtRandomBreakNoPromiseOfAnyStore() throws Exception {
        long seed = Long.getLong("campaign.seed", new Random().nextLong());
        System.out.println("fault campaign: seed " + seed + ", replay with -Dcampaign.seed=" + seed);
        List<CampaignStore> stores = new ArrayList<>();
        try {
            for (String store : System.getProperty("campaign.stores", "jpa,redis").split(",")) {
                stores.add(switch (store.trim()) {
                    case "jpa" -> new JpaCampaignStore();
                    case "redis" -> new RedisCampaignStore();
                    default -> throw new IllegalArgumentException("campaign.stores: no store " + store + " (jpa, redis)");
                });
            }
            run(seed, stores);
        } finally {
            for (CampaignStore store : stores) {
                store.close();
            }
        }
    }

    private static void run(long seed, List<CampaignStore> stores) throws Exception {
        String config = "Idempotent/lease=" + LEASE + "\n";
        List<WebArchive> apps = stores.stream().map(store -> store.app(config)).toList();
        try (CampaignNode a = CampaignNode.of("campaign-a", apps); CampaignNode b = CampaignNode.of("campaign-b", apps)) {
            CompletableFuture.allOf(CompletableFuture.runAsync(() -> start(a)), CompletableFuture.runAsync(() -> start(b)))
                    .get(5, TimeUnit.MINUTES);
            List<CampaignNode> nodes = List.of(a, b);
            List<Nemesis.Fault> faults = new ArrayList<>(nodeFaults(nodes));
            stores.forEach(store -> faults.addAll(store.faults()));
            Nemesis nemesis = new Nemesis(seed, faults);
            String run = UUID.randomUUID().toString();
            List<CampaignClients> clients = stores.stream().map(store -> new CampaignClients(nodes, store.contextRoot(),
                    "o-" + store.contextRoot() + "-" + run + "-", seed, REUSE_SHARE)).toList();

            long startedAt = System.nanoTime();
            Future<?> injecting = nemesis.start(QUIET, LOAD.minus(QUIET));
            try {
                // every store's clients work until the nemesis has healed its last fault
                CompletableFuture.allOf(clients.stream().map(perStore -> CompletableFuture.runAsync(() -> work(perStore,
                        injecting))).toArray(CompletableFuture[]::new)).get(LOAD.toMinutes() + 10, TimeUnit.MINUTES);
            } finally {
                nemesis.stop();
            }
            // the nemesis heals what it broke before it ends; a node it kills is started again
            Nemesis.await(injecting, Duration.ofMinutes(4));
            long faultsEndedAt = System.nanoTime();
            for (CampaignClients perStore : clients) {
                perStore.resolve(CLIENTS_PER_STORE, Duration.ofSeconds(60));
            }
            System.out.printf("fault campaign, seed %d: %.0f s of load and faults %s, %.0f s of final reads%n", seed,
                    (faultsEndedAt - startedAt) / 1e9, nemesis.counts(), (System.nanoTime() - faultsEndedAt) / 1e9);

            List<String> violations = new ArrayList<>();
            for (int i = 0; i < stores.size(); i++) {
                CampaignStore store = stores.get(i);
                Map<String, Set<String>> rows = PaymentsDatabase.paymentIdsPerOrder(store.paymentsDatabase(),
                        "o-" + store.contextRoot() + "-" + run + "-");
                HistoryChecker.Verdict verdict = HistoryChecker.check(clients.get(i).operations(), rows,
                        store.admittedWindows(), nemesis.injected(), store.databaseCrashes());
                System.out.printf("fault campaign (%s), seed %d: %s%n", store.name(), seed, verdict.report());
                verdict.violations().forEach(violation -> violations.add(store.name() + ": " + violation));
            }
            assertThat(nemesis.counts().keySet()).as("every kind of fault was injected")
                    .containsAll(faults.stream().map(Nemesis.Fault::kind).toList());
            assertThat(violations).as("broken promises (seed " + seed + ")").isEmpty();
        }
    }

    private static void work(CampaignClients clients, Future<?> injecting) {
        try {
            clients.run(CLIENTS_PER_STORE, () -> !injecting.isDone(), LOAD.plus(Duration.ofMinutes(5)));
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static void start(CampaignNode node) {
        try {
            node.start();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static List<Nemesis.Fault> nodeFaults(List<CampaignNode> nodes) {
        return List.of(Nemesis.fault("kill -9 node", random -> {
            int which = random.nextInt(nodes.size());
            long downMs = 500 + random.nextInt(2500);
            nodes.get(which).kill();
            Thread.sleep(downMs);
            long restart = System.nanoTime();
            nodes.get(which).start();
            return "node " + which + " down " + downMs + " ms, restarted in " + (System.nanoTime() - restart) / 1_000_000 + " ms";
        }), Nemesis.fault("SIGSTOP node past its lease", random -> {
            int which = random.nextInt(nodes.size());
            long pauseMs = LEASE.toMillis() + 1000 + random.nextInt(3000);
            nodes.get(which).freeze(Duration.ofMillis(pauseMs));
            return "node " + which + " frozen " + pauseMs + " ms";
        }));
    }
}
