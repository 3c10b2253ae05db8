package dev.idempotency.jaxrs;

import java.io.IOException;
import java.io.InputStream;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.security.Principal;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.logging.Logger;

import jakarta.enterprise.inject.spi.CDI;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonReader;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.CacheControl;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.SecurityContext;

import dev.idempotency.cdi.IdempotencyRuntime;
import dev.idempotency.config.LibrarySettings;
import dev.idempotency.internal.Messages;
import dev.idempotency.jaxrs.internal.ProblemResponses;
import dev.idempotency.lookup.BadSupportQuery;
import dev.idempotency.lookup.RecordLookup;
import dev.idempotency.lookup.SupportQuery;
import dev.idempotency.spi.IdempotencyRecord;
import dev.idempotency.spi.IdempotencyStoreException;
import dev.idempotency.spi.RecordDetails;
import dev.idempotency.spi.RecordState;
import dev.idempotency.spi.StoredOutcome;

/**
 * The support look-up: what the store holds for a client's key, and the release of a claim whose
 * owner is gone. It is not a resource until the application opts in by giving it a path, in one line:
 *
 * <pre>{@code
 * @Path("idempotency-support")
 * public class IdempotencySupportEndpoint extends IdempotencySupportResource {
 * }
 * }</pre>
 *
 * <p>Both operations take a JSON object naming the record as a client's request did:
 * {@code {"endpoint":"com.acme.PaymentResource#create(com.acme.PaymentRequest)","caller":"alice","key":"order-17"}}
 * ({@code "caller": null} for the key space of anonymous callers; {@code "tenant"} in the tenant
 * scopes). The key travels in the body, not the URL, so that access logs never hold it.
 * <ul>
 * <li>{@code POST .../lookup} (role {@code idempotency.support.role}, default
 * {@code idempotency-support}): {@code 200} with the state, when it was claimed, when its lease
 * ends, when it expires, whether an answer is stored, its status and size; the stored body and
 * headers only with {@code "includeBody": true}. {@code 404 no-record} when the store holds nothing.</li>
 * <li>{@code POST .../release} (role {@code idempotency.support.release-role}, default
 * {@code idempotency-operator}): removes an in-progress claim whose lease ran out, so that the next
 * request with the key runs, with any payload; {@code 409 lease-running} (with {@code Retry-After})
 * while its lease runs, {@code 409 not-releasable} for work that committed or a completed record,
 * which stays until its ttl. Each release is logged ({@code IDEMP0323}) with the caller's name.</li>
 * </ul>
 * An unauthenticated caller gets {@code 401 authentication-required}, a caller without the role
 * {@code 403 support-role-required}, a question that is not sent as {@code application/json} or
 * points at no record {@code 400 invalid-support-request}, and {@code 503 store-unavailable} when the store cannot answer.
 * Answers are {@code Cache-Control: no-store}.
 */
public abstract class IdempotencySupportResource {

    private static final Logger LOG = Logger.getLogger(IdempotencySupportResource.class.getName());

    @Context
    SecurityContext security;

    @Context
    HttpHeaders headers;

    /**
     * What the store holds for a key.
     *
     * @param body the question, a JSON object
     * @return 200 with the record, or a problem
     */
    @POST
    @Path("lookup")
    @Produces({MediaType.APPLICATION_JSON, ProblemResponses.PROBLEM_JSON})
    public Response lookUp(InputStream body) {
        return answer(LibrarySettings::supportRole, (runtime, lookup) -> {
            JsonObject question = question(body);
            RecordLookup.Target target = lookup.target(query(question));
            Optional<RecordDetails> found = lookup.inspect(target);
            if (found.isEmpty()) {
                return noRecord(target);
            }
            return Response.ok(describe(target, found.get(), flag(question, "includeBody")).build().toString(),
                    MediaType.APPLICATION_JSON_TYPE).build();
        });
    }

    /**
     * Releases an in-progress claim whose lease ran out.
     *
     * @param body the question, a JSON object
     * @return 200 when released, or a problem
     */
    @POST
    @Path("release")
    @Produces({MediaType.APPLICATION_JSON, ProblemResponses.PROBLEM_JSON})
    public Response release(InputStream body) {
        return answer(LibrarySettings::supportReleaseRole, (runtime, lookup) -> {
            RecordLookup.Target target = lookup.target(query(question(body)));
            RecordLookup.Release release = lookup.release(target);
            if (release instanceof RecordLookup.Release.Released) {
                LOG.info(Messages.supportRelease(security.getUserPrincipal().getName(), target.keyHash(),
                        target.policy().endpoint()));
                String answer = Json.createObjectBuilder().add("endpoint", target.policy().endpoint())
                        .add("keyHash", target.keyHash()).add("released", true).build().toString();
                return Response.ok(answer, MediaType.APPLICATION_JSON_TYPE).build();
            }
            if (release instanceof RecordLookup.Release.NoRecord) {
                return noRecord(target);
            }
            if (release instanceof RecordLookup.Release.LeaseRunning running) {
                return ProblemResponses.retryable(IdempotencyProblem.LEASE_RUNNING, "The claim's lease "
                        + running.details().leaseEnd().map(end -> "ends at " + end).orElse("has not run out")
                        + ": its owner may still be working. Release it once the lease has run out.",
                        retryAfter(running.details(), target));
            }
            RecordState state = ((RecordLookup.Release.NotReleasable) release).state();
            return ProblemResponses.of(IdempotencyProblem.NOT_RELEASABLE, whyNotReleasable(state));
        });
    }

    /**
     * One support operation, its every answer {@code Cache-Control: no-store} (problems too: they
     * name key hashes and leases).
     */
    private Response answer(Function<LibrarySettings, String> role, BiFunction<IdempotencyRuntime, RecordLookup, Response> work) {
        return noStore(Response.fromResponse(answerOf(role, work)));
    }

    /** One support operation: the caller's role checked first, a bad question or a store failure answered as a problem. */
    private Response answerOf(Function<LibrarySettings, String> role, BiFunction<IdempotencyRuntime, RecordLookup, Response> work) {
        IdempotencyRuntime runtime = CDI.current().select(IdempotencyRuntime.class).get();
        LibrarySettings settings = runtime.settings();
        Response refused = refusal(settings, role.apply(settings));
        if (refused != null) {
            return refused;
        }
        MediaType sent = headers.getMediaType();
        if (sent == null || !MediaType.APPLICATION_JSON_TYPE.isCompatible(sent)) {
            // Only JSON: a browser cannot send it cross-site without a CORS preflight, so a page
            // an operator visits cannot make the operator's browser release claims.
            return ProblemResponses.of(IdempotencyProblem.INVALID_SUPPORT_REQUEST,
                    "Send the question as Content-Type: application/json.");
        }
        try {
            return work.apply(runtime, runtime.recordLookup());
        } catch (BadSupportQuery e) {
            return ProblemResponses.of(IdempotencyProblem.INVALID_SUPPORT_REQUEST, e.getMessage());
        } catch (IdempotencyStoreException e) {
            return ProblemResponses.retryable(IdempotencyProblem.STORE_UNAVAILABLE,
                    "The idempotency store cannot be reached. Retry later.", settings.retryAfterSeconds());
        }
    }

    /** @return the 401 or 403 answer, or {@code null} when the caller has the role */
    private Response refusal(LibrarySettings settings, String role) {
        Principal caller = security.getUserPrincipal();
        if (caller == null) {
            return ProblemResponses.unauthorized("The idempotency support look-up needs an authenticated caller.",
                    settings.authenticationChallenge());
        }
        if (!security.isUserInRole(role)) {
            return ProblemResponses.of(IdempotencyProblem.SUPPORT_ROLE_REQUIRED,
                    "This operation of the idempotency support look-up needs the role '" + role + "'.");
        }
        return null;
    }

    /**
     * Reads the question itself, once the caller's role was checked (an entity parameter would have
     * been read whole by the container first, whatever its size and whoever sent it), and no more
     * than a question needs.
     *
     * @param body the request's entity stream
     * @return the question
     * @throws BadSupportQuery when it is larger than {@value #MAX_QUESTION_BYTES} bytes or no JSON object
     */
    static JsonObject question(InputStream body) {
        byte[] read;
        try {
            read = body == null ? new byte[0] : body.readNBytes(MAX_QUESTION_BYTES + 1);
        } catch (IOException e) {
            throw new BadSupportQuery("the question could not be read completely; send it again");
        }
        if (read.length > MAX_QUESTION_BYTES) {
            throw new BadSupportQuery("a question is at most " + MAX_QUESTION_BYTES + " bytes: {\"endpoint\":...,"
                    + "\"caller\":...,\"key\":...}");
        }
        return parse(new String(read, StandardCharsets.UTF_8));
    }

    /** The largest question read: an endpoint, a caller, a key and a tenant, with room to spare. */
    static final int MAX_QUESTION_BYTES = 16 * 1024;

    static JsonObject parse(String body) {
        if (body == null || body.isBlank()) {
            throw new BadSupportQuery("send a JSON object with \"endpoint\", \"caller\" and \"key\"");
        }
        JsonValue value;
        try (JsonReader reader = Json.createReader(new StringReader(body))) {
            value = reader.readValue();
        } catch (RuntimeException e) {
            // JsonException, and the parser's limits (Parsson: UnsupportedOperationException for a
            // number of more than 1,100 digits): the client's mistake either way
            throw new BadSupportQuery("the body is no JSON this server reads; send {\"endpoint\":...,\"caller\":...,"
                    + "\"key\":...}");
        }
        if (value.getValueType() != JsonValue.ValueType.OBJECT) {
            throw new BadSupportQuery("the body is JSON but no object; send {\"endpoint\":...,\"caller\":...,\"key\":...}");
        }
        return value.asJsonObject();
    }

    private static SupportQuery query(JsonObject question) {
        if (!question.containsKey("caller")) {
            throw new BadSupportQuery("name the caller (\"caller\": the principal's name, or null for anonymous callers)");
        }
        return new SupportQuery(string(question, "endpoint"), string(question, "caller"), string(question, "tenant"),
                string(question, "key"));
    }

    /** @return the member's string, or {@code null} when absent or {@code null} */
    private static String string(JsonObject question, String name) {
        JsonValue value = question.get(name);
        if (value == null || value.getValueType() == JsonValue.ValueType.NULL) {
            return null;
        }
        if (value instanceof JsonString text) {
            return text.getString();
        }
        throw new BadSupportQuery("\"" + name + "\" must be a string");
    }

    private static boolean flag(JsonObject question, String name) {
        JsonValue value = question.get(name);
        JsonValue.ValueType type = value == null ? JsonValue.ValueType.NULL : value.getValueType();
        if (type == JsonValue.ValueType.NULL || type == JsonValue.ValueType.FALSE) {
            return false;
        }
        if (type == JsonValue.ValueType.TRUE) {
            return true;
        }
        throw new BadSupportQuery("\"" + name + "\" must be true or false");
    }

    private static JsonObjectBuilder describe(RecordLookup.Target target, RecordDetails details, boolean includeBody) {
        IdempotencyRecord record = details.record();
        JsonObjectBuilder json = Json.createObjectBuilder().add("endpoint", target.policy().endpoint())
                .add("keyHash", target.keyHash()).add("state", record.state().name());
        details.claimed().ifPresent(time -> json.add("claimedAt", time.toString()));
        details.leaseEnd().ifPresent(time -> json.add("leaseEnds", time.toString()));
        details.expiry().ifPresent(time -> json.add("expiresAt", time.toString()));
        StoredOutcome outcome = record.outcome();
        json.add("responseStored", outcome != null);
        if (outcome != null) {
            json.add("status", outcome.status()).add("bodyStored", outcome.bodyStored())
                    .add("bodySize", outcome.bodyLength());
            if (includeBody) {
                JsonObjectBuilder headers = Json.createObjectBuilder();
                for (Map.Entry<String, List<String>> header : outcome.headers().entrySet()) {
                    headers.add(header.getKey(), Json.createArrayBuilder(header.getValue()));
                }
                json.add("headers", headers).add("body", Base64.getEncoder().encodeToString(outcome.body()));
            }
        }
        return json;
    }

    private static String whyNotReleasable(RecordState state) {
        return switch (state) {
            case EXECUTED -> "Its work committed and its answer is being stored: it never runs again.";
            case OUTCOME_LOST -> "Its work committed and its answer was lost: it never runs again; retries get"
                    + " 410 response-lost until the record expires.";
            case COMPLETED -> "It completed: its answer is replayed until its ttl ends, and a completed record is"
                    + " never removed before that.";
            case IN_PROGRESS -> "It changed while it was being released; look it up again.";
        };
    }

    private static int retryAfter(RecordDetails details, RecordLookup.Target target) {
        Duration left = details.leaseEnd().map(end -> Duration.between(Instant.now(), end)).orElse(target.policy().lease());
        return (int) Math.max(1, Math.min(Integer.MAX_VALUE, left.toSeconds() + 1));
    }

    private static Response noRecord(RecordLookup.Target target) {
        return ProblemResponses.of(IdempotencyProblem.NO_RECORD, "The store holds no record of this key on "
                + target.policy().endpoint() + " (" + target.keyHash() + "): it was never claimed with this caller"
                + " and tenant, was released, or expired.");
    }

    private static Response noStore(Response.ResponseBuilder answer) {
        CacheControl noStore = new CacheControl();
        noStore.setNoStore(true);
        return answer.cacheControl(noStore).build();
    }
}
