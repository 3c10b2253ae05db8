package dev.idempotency.it.resources;

import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.container.AsyncResponse;
import jakarta.ws.rs.container.Suspended;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import dev.idempotency.IdempotencyScope;
import dev.idempotency.Idempotent;
import dev.idempotency.InProgressDuplicates;

/** Endpoints for the contract rows the payments sample does not show. Each counts its executions. */
@Path("contract")
@RequestScoped
@Produces(MediaType.APPLICATION_JSON)
public class ContractResource {

    @Inject
    Counters counters;

    @Inject
    SwitchableStore store;

    @Inject
    Gates gates;

    private String run(String name) {
        long n = counters.increment(name);
        return "{\"endpoint\":\"" + name + "\",\"execution\":" + n + ",\"nonce\":\"" + UUID.randomUUID() + "\"}";
    }

    @GET
    @Path("count/{name}")
    public Map<String, Long> count(@PathParam("name") String name) {
        return Map.of("count", counters.get(name));
    }

    @POST
    @Path("store")
    public Response switchStore(@QueryParam("down") boolean down) {
        store.down(down);
        return Response.noContent().build();
    }

    @POST
    @Path("token-only")
    @Idempotent(serverIssuedKeys = true)
    public String tokenOnly(String body) {
        return run("token-only");
    }

    @POST
    @Path("token-only-too")
    @Idempotent(serverIssuedKeys = true)
    public String tokenOnlyToo(String body) {
        return run("token-only-too");
    }

    /** Plain {@code @Idempotent}: server-issued keys are switched on in MicroProfile Config. */
    @POST
    @Path("token-by-config")
    @Idempotent
    public String tokenByConfig(String body) {
        return run("token-by-config");
    }

    @POST
    @Path("optional")
    @Idempotent(required = false)
    public String optional(String body) {
        return run("optional");
    }

    @POST
    @Path("configured")
    @Idempotent
    public String configured(String body) {
        return run("configured");
    }

    @POST
    @Path("plain")
    public String plain(String body) {
        return run("plain");
    }

    @POST
    @Path("pinned")
    @Idempotent(pinServerErrors = true)
    public Response pinned(String body) {
        return Response.status(500).entity(run("pinned")).build();
    }

    @POST
    @Path("throws")
    @Idempotent
    public String throwing(String body) {
        run("throws");
        throw new RejectedException("declined");
    }

    @POST
    @Path("no-content")
    @Idempotent
    public Response noContent(String body) {
        run("no-content");
        return Response.noContent().header("ETag", "\"v" + counters.get("no-content") + "\"").build();
    }

    @POST
    @Path("large")
    @Idempotent
    public Response large(String body) {
        run("large");
        return Response.ok("x".repeat(4096), MediaType.TEXT_PLAIN)
                .header("Location", "http://localhost/contract/large/1").build();
    }

    /** Two operations that share a Java method name: two key spaces, whatever the key. */
    @POST
    @Path("overloaded")
    @Idempotent
    public String overloaded(String body) {
        return run("overloaded");
    }

    @POST
    @Path("overloaded/{id}")
    @Idempotent
    public String overloaded(@PathParam("id") String id, String body) {
        return run("overloaded-" + id);
    }

    @POST
    @Path("shared")
    @Idempotent(scope = IdempotencyScope.ENDPOINT)
    public String shared(String body) {
        return run("shared");
    }

    @POST
    @Path("fail-open")
    @Idempotent(failOpen = true)
    public String failOpen(String body) {
        return run("fail-open");
    }

    @jakarta.annotation.Resource
    jakarta.transaction.TransactionSynchronizationRegistry transactions;

    /** Returns normally, but its transaction rolls back at commit: nothing happened. */
    @POST
    @Path("rollback")
    @Idempotent
    @jakarta.transaction.Transactional
    public String rollback(String body) {
        String result = run("rollback");
        transactions.setRollbackOnly();
        return result;
    }

    /**
     * Returns normally and its work is marked executed in its transaction, but the commit fails
     * (a synchronization marks the transaction rollback-only in beforeCompletion): nothing happened.
     */
    @POST
    @Path("failed-commit")
    @Idempotent
    @jakarta.transaction.Transactional
    public String failedCommit(String body) {
        String result = run("failed-commit");
        transactions.registerInterposedSynchronization(new jakarta.transaction.Synchronization() {
            @Override
            public void beforeCompletion() {
                transactions.setRollbackOnly();
            }

            @Override
            public void afterCompletion(int status) {
            }
        });
        return result;
    }

    /**
     * Throws a checked exception, which {@code @Transactional} commits: the work before it is in,
     * so a retry must not run it again.
     *
     * @throws DeclinedException always
     */
    @POST
    @Path("committed-decline")
    @Idempotent
    @jakarta.transaction.Transactional
    public String committedDecline(String body) throws DeclinedException {
        run("committed-decline");
        throw new DeclinedException("declined after the work was written");
    }

    @POST
    @Path("stage")
    @Idempotent
    public CompletionStage<Response> stage(@QueryParam("delayMs") long delayMs, @QueryParam("fail") boolean fail) {
        String result = run("stage");
        return CompletableFuture.supplyAsync(() -> {
            if (fail) {
                throw new IllegalStateException("async failure");
            }
            return Response.status(201).entity(result).build();
        }, CompletableFuture.delayedExecutor(delayMs, TimeUnit.MILLISECONDS));
    }

    @POST
    @Path("suspended")
    @Idempotent
    public void suspended(@QueryParam("delayMs") long delayMs, @QueryParam("cancel") boolean cancel,
            @Suspended AsyncResponse response) {
        String result = run("suspended");
        CompletableFuture.delayedExecutor(delayMs, TimeUnit.MILLISECONDS)
                .execute(() -> {
                    if (cancel) {
                        response.cancel(2); // 503, Retry-After: 2
                    } else {
                        response.resume(Response.ok(result).build());
                    }
                });
    }

    @Inject
    InTransactionResumer resumer;

    @jakarta.annotation.Resource
    jakarta.enterprise.concurrent.ManagedExecutorService executor;

    /**
     * Answered from a transaction that rolls back after the answer was written, on the first
     * execution of each key (counted by key), and commits on the others.
     */
    @POST
    @Path("resumed-in-transaction")
    @Idempotent
    public void resumedInTransaction(@HeaderParam("Idempotency-Key") String key, @Suspended AsyncResponse response) {
        String result = run("resumed-in-transaction");
        boolean first = counters.increment("resumed-in-transaction:" + key) == 1;
        executor.execute(() -> resumer.resume(response, Response.status(201).entity(result).build(), first));
    }

    /**
     * Duplicates in flight wait for the first answer. Counts its start ({@code waiting.started}),
     * then waits at the gate named by {@code gate} until the test opens it (or sleeps
     * {@code delayMs} without one), and counts its executions after; with {@code X-Fail: true} (a
     * header, outside the fingerprint) it answers {@code 500}, which gives the key back.
     */
    @POST
    @Path("waiting")
    @Idempotent(inProgress = InProgressDuplicates.WAIT, maxWait = "PT10S")
    public Response waiting(@QueryParam("gate") String gate, @QueryParam("delayMs") long delayMs,
            @HeaderParam("X-Fail") boolean fail, String body) throws InterruptedException {
        return slowly("waiting", gate, delayMs, fail);
    }

    /** As {@link #waiting}, waiting at most 1 s. */
    @POST
    @Path("waiting-briefly")
    @Idempotent(inProgress = InProgressDuplicates.WAIT, maxWait = "PT1S")
    public Response waitingBriefly(@QueryParam("gate") String gate, String body) throws InterruptedException {
        return slowly("waiting-briefly", gate, 0, false);
    }

    /** Opens a gate that a slow first request waits at. */
    @POST
    @Path("gate/{name}")
    public Response openGate(@PathParam("name") String name) {
        gates.open(name);
        return Response.noContent().build();
    }

    private Response slowly(String name, String gate, long delayMs, boolean fail) throws InterruptedException {
        counters.increment(name + ".started");
        if (gate != null) {
            gates.pass(gate);
        } else {
            TimeUnit.MILLISECONDS.sleep(delayMs);
        }
        if (fail) {
            counters.increment(name + ".failed");
            return Response.serverError().entity("{\"failed\":true}").build();
        }
        return Response.ok(run(name)).build();
    }
}
