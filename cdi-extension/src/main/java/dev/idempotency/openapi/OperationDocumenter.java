package dev.idempotency.openapi;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import org.eclipse.microprofile.openapi.OASFactory;
import org.eclipse.microprofile.openapi.models.Components;
import org.eclipse.microprofile.openapi.models.OpenAPI;
import org.eclipse.microprofile.openapi.models.Operation;
import org.eclipse.microprofile.openapi.models.PathItem;
import org.eclipse.microprofile.openapi.models.headers.Header;
import org.eclipse.microprofile.openapi.models.media.Content;
import org.eclipse.microprofile.openapi.models.media.Schema;
import org.eclipse.microprofile.openapi.models.parameters.Parameter;
import org.eclipse.microprofile.openapi.models.parameters.RequestBody;
import org.eclipse.microprofile.openapi.models.responses.APIResponse;
import org.eclipse.microprofile.openapi.models.responses.APIResponses;

import dev.idempotency.config.BodyPointer;
import dev.idempotency.config.HttpOperation;
import dev.idempotency.config.IdempotencyPolicy;
import dev.idempotency.config.KeySource;
import dev.idempotency.config.LibrarySettings;
import dev.idempotency.config.TenantSource;
import dev.idempotency.jaxrs.IdempotencyProblem;

/**
 * Adds the idempotency contract to the operations of an OpenAPI document that are
 * {@code @Idempotent}:
 * <ul>
 * <li>the key header (the library's or the endpoint's {@code keyHeader}: name, required or not, 1 to
 * {@code idempotency.max-key-length} printable US-ASCII characters, how long its outcome is kept),
 * or, for a key taken from the body ({@code keyFromBody}), the same on the request body's
 * description; on a tenant-scoped operation whose tenant comes from a header, that header too;</li>
 * <li>the {@code 400}, {@code 409}, {@code 410}, {@code 413}, {@code 422} and {@code 503} answers
 * as {@code application/problem+json}, each listing its problem types ({@code Retry-After} on 409
 * and 503), and {@code 401} where anonymous callers are refused or the tenant comes with the
 * credentials (with {@code WWW-Authenticate} when {@code idempotency.authentication-challenge}
 * is set), unless the application documented that status itself;</li>
 * <li>the {@code Idempotent-Replayed} header on the documented success answers;</li>
 * <li>an {@code x-idempotency} extension with the machine-readable settings (header or keyFromBody,
 * required, ttl, lease, scope, serverIssuedKeys, anonymous, fingerprint and fingerprintMembers,
 * inProgress and, with {@code WAIT}, maxWait, and the tenant source of a tenant-scoped operation).</li>
 * </ul>
 * Operations are found by HTTP method and path: a document's path ends with the operation's path
 * relative to its JAX-RS application; the application path in front of it is the one most
 * operations share.
 */
final class OperationDocumenter {

    static final String PROBLEM_SCHEMA = "IdempotencyProblem";
    private static final String PROBLEM_JSON = "application/problem+json";

    private final LibrarySettings settings;
    private final List<HttpOperation> operations;

    OperationDocumenter(LibrarySettings settings, List<HttpOperation> operations) {
        this.settings = settings;
        this.operations = operations;
    }

    /** An operation of the document and the {@code @Idempotent} method it documents. */
    private record Match(Operation operation, IdempotencyPolicy policy, String applicationPath, boolean atRoot) {
    }

    /**
     * @param openAPI the document, changed in place
     * @return how many operations were documented
     */
    int document(OpenAPI openAPI) {
        if (openAPI.getPaths() == null || openAPI.getPaths().getPathItems() == null) {
            return 0;
        }
        List<Match> matches = new ArrayList<>();
        openAPI.getPaths().getPathItems().forEach((path, item) -> matches.addAll(matchesOf(path, item)));
        if (matches.isEmpty()) {
            return 0;
        }
        String applicationPath = applicationPath(matches, openAPI.getPaths().getPathItems().keySet());
        int documented = 0;
        for (Match match : matches) {
            if (match.applicationPath().equals(applicationPath)) {
                document(match.operation(), match.policy());
                documented++;
            }
        }
        addProblemSchema(openAPI);
        return documented;
    }

    /**
     * One JAX-RS application per deployment is the rule: its path is the prefix most matches
     * share. An operation at the application's root matches every path with its HTTP method, so
     * it only votes when nothing else does (and then the shortest path is the root).
     */
    private static String applicationPath(List<Match> matches, Set<String> paths) {
        List<Match> voters = matches.stream().filter(m -> !m.atRoot()).toList();
        if (voters.isEmpty()) {
            return matches.stream().map(Match::applicationPath).min(Comparator.comparingInt(String::length)).orElseThrow();
        }
        // An ordinary operation whose path merely ends like an idempotent one's (/customers/{id}/orders
        // beside /orders) votes for a prefix under the application's: the prefix of most of the
        // document's paths wins, then the most votes, then the shortest.
        Map<String, Long> votes = voters.stream()
                .collect(Collectors.groupingBy(Match::applicationPath, LinkedHashMap::new, Collectors.counting()));
        return votes.keySet().stream().max(Comparator.<String>comparingLong(prefix -> paths.stream()
                        .filter(path -> path.equals(prefix) || path.startsWith(prefix + "/")).count())
                .thenComparingLong(votes::get).thenComparing(Comparator.comparingInt(String::length).reversed()))
                .orElseThrow();
    }

    private List<Match> matchesOf(String path, PathItem item) {
        List<Match> found = new ArrayList<>();
        if (item.getOperations() == null) {
            return found;
        }
        item.getOperations().forEach((method, operation) -> operations.stream()
                .filter(candidate -> candidate.httpMethod().equalsIgnoreCase(method.name()))
                .filter(candidate -> path.endsWith(relative(candidate)))
                // the most specific path wins: /orders/{id}/refunds over /refunds
                .max(Comparator.comparingInt(candidate -> relative(candidate).length()))
                .ifPresent(candidate -> found.add(new Match(operation, candidate.policy(),
                        stripSlash(path.substring(0, path.length() - relative(candidate).length())),
                        relative(candidate).isEmpty()))));
        return found;
    }

    private static String stripSlash(String path) {
        return path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
    }

    private static String relative(HttpOperation operation) {
        return operation.pathTemplate().equals("/") ? "" : operation.pathTemplate();
    }

    private void document(Operation operation, IdempotencyPolicy policy) {
        KeySource source = policy.keySource();
        String header = source.header().isEmpty() ? settings.keyHeader() : source.header();
        if (source.fromBody()) {
            describeKeyInBody(operation, policy);
        } else if (!hasHeader(operation, header)) {
            operation.addParameter(keyParameter(policy, header));
        }
        if (policy.tenantScoped() && settings.tenantSource() == TenantSource.HEADER && !hasHeader(operation,
                settings.tenantHeader())) {
            operation.addParameter(OASFactory.createParameter().name(settings.tenantHeader()).in(Parameter.In.HEADER)
                    .required(true).schema(SchemaTypes.string().minLength(1))
                    .description("The tenant this request belongs to, once: idempotency keys are kept apart per tenant."
                            + " Without it (or sent twice) the request gets 400 missing-tenant."));
        }
        APIResponses responses = operation.getResponses();
        if (responses == null) {
            responses = OASFactory.createAPIResponses();
            operation.setResponses(responses);
        }
        markReplays(responses);
        Map<Integer, List<IdempotencyProblem>> byStatus = problemsOf(policy);
        for (Map.Entry<Integer, List<IdempotencyProblem>> entry : byStatus.entrySet()) {
            String status = String.valueOf(entry.getKey());
            if (!responses.hasAPIResponse(status)) {
                responses.addAPIResponse(status, problemResponse(entry.getKey(), entry.getValue()));
            }
        }
        Map<String, Object> extension = new LinkedHashMap<>();
        if (source.fromBody()) {
            extension.put("keyFromBody", source.bodyPointer().text());
        } else {
            extension.put("header", header);
        }
        extension.put("required", policy.required());
        extension.put("ttl", policy.ttl().toString());
        extension.put("lease", policy.lease().toString());
        // A token's use is always its principal's, whatever the scope member says.
        extension.put("scope", policy.serverIssuedKeys() ? "PRINCIPAL" : policy.scope().name());
        extension.put("serverIssuedKeys", policy.serverIssuedKeys());
        extension.put("anonymous", policy.anonymous().name());
        if (policy.tenantScoped()) {
            extension.put("tenantSource", settings.tenantSource().name());
        }
        extension.put("fingerprint", policy.fingerprint().mode().name());
        extension.put("inProgress", policy.inProgress().name());
        if (policy.waitsForInProgress()) {
            extension.put("maxWait", policy.maxWait().toString());
        }
        if (!policy.fingerprint().members().isEmpty()) {
            extension.put("fingerprintMembers",
                    policy.fingerprint().members().stream().map(BodyPointer::text).toList());
        }
        operation.addExtension("x-idempotency", extension);
    }

    private static boolean hasHeader(Operation operation, String name) {
        return operation.getParameters() != null && operation.getParameters().stream()
                .anyMatch(p -> p.getIn() == Parameter.In.HEADER && name.equalsIgnoreCase(p.getName()));
    }

    /**
     * A key in the body has no parameter of its own: the request body says where it is. An
     * operation without a documented body (OpenAPI requires content for one) keeps only the
     * {@code x-idempotency} extension.
     */
    private void describeKeyInBody(Operation operation, IdempotencyPolicy policy) {
        RequestBody body = operation.getRequestBody();
        if (body == null) {
            return;
        }
        String pointer = policy.keySource().bodyPointer().text();
        String note = "Its value at the JSON Pointer `" + pointer + "` (a string, or a number) is the idempotency key:"
                + " a request with the key of an earlier one and the same request gets the first response back, with `"
                + settings.replayedHeader() + ": true`, for " + policy.ttl() + " (ISO-8601); one while the first is"
                + " still running " + whileRunning(policy) + "; the same key with another request gets 422."
                + (policy.required() ? " Without a value there, the request gets 400 missing-key."
                        : " Without a value there, the request runs with no idempotency at all.");
        body.setDescription(body.getDescription() == null || body.getDescription().isBlank() ? note
                : body.getDescription() + "\n\n" + note);
    }

    /** @return what a duplicate of a request in flight gets, as the key's descriptions say it */
    private static String whileRunning(IdempotencyPolicy policy) {
        return policy.waitsForInProgress()
                ? "waits up to " + policy.maxWait() + " (ISO-8601) for the first response and gets it (409 if it takes longer)"
                : "gets 409";
    }

    private Parameter keyParameter(IdempotencyPolicy policy, String header) {
        String description = "Identifies this operation across retries: send a new unique value (a UUID) for each"
                + " new operation and the same value when retrying it. A retry with the same key and the same request"
                + " gets the first response back, with `" + settings.replayedHeader() + ": true`, for "
                + policy.ttl() + " (ISO-8601); a retry while the first is still running " + whileRunning(policy)
                + "; the same key with another request gets 422."
                + (policy.serverIssuedKeys() ? " Must be a token this API issued to the caller (from its token"
                        + " endpoint) and not expired; any other value gets 400 unknown-token." : "")
                + (policy.required() ? "" : " Optional: without it the request runs with no idempotency at all.");
        Schema schema = SchemaTypes.string().minLength(1).maxLength(settings.maxKeyLength())
                .pattern("^[\\x20-\\x7E]+$");
        return OASFactory.createParameter().name(header).in(Parameter.In.HEADER)
                .required(policy.required()).description(description).schema(schema);
    }

    private void markReplays(APIResponses responses) {
        if (responses.getAPIResponses() == null) {
            return;
        }
        responses.getAPIResponses().forEach((status, response) -> {
            if (status.startsWith("2") || status.equals("default")) {
                Header replayed = OASFactory.createHeader().schema(SchemaTypes.string().enumeration(List.of("true")))
                        .description("Present on a replay: this is the stored response of the first request"
                                + " with this key; nothing was executed again.");
                if (response.getHeaders() == null || !response.getHeaders().containsKey(settings.replayedHeader())) {
                    response.addHeader(settings.replayedHeader(), replayed);
                }
            }
        });
    }

    private Map<Integer, List<IdempotencyProblem>> problemsOf(IdempotencyPolicy policy) {
        Map<Integer, List<IdempotencyProblem>> byStatus = new java.util.TreeMap<>();
        for (IdempotencyProblem problem : IdempotencyProblem.values()) {
            boolean applies = switch (problem) {
                case MISSING_KEY -> policy.required();
                case UNKNOWN_TOKEN -> policy.serverIssuedKeys();
                case MISSING_TENANT -> policy.tenantScoped();
                case AUTHENTICATION_REQUIRED -> policy.rejectsAnonymous()
                        || (policy.tenantScoped() && settings.tenantSource().fromCredentials());
                case INVALID_KEY, UNREADABLE_BODY, REQUEST_IN_PROGRESS, RESPONSE_NOT_STORED, RESPONSE_LOST,
                        REQUEST_TOO_LARGE, KEY_REUSED, STORE_UNAVAILABLE -> true;
                // non-HTTP (OUTCOME_UNAVAILABLE), the token and support endpoints', and any added later
                // until it is listed here: never promised to clients of an operation that cannot answer it
                default -> false;
            };
            if (applies) {
                byStatus.computeIfAbsent(problem.status(), s -> new ArrayList<>()).add(problem);
            }
        }
        return byStatus;
    }

    private APIResponse problemResponse(int status, List<IdempotencyProblem> problems) {
        String description = problems.stream()
                .map(p -> "`" + p.type() + "`: " + p.title())
                .collect(Collectors.joining("; ", "Idempotency-Key contract. ", "."));
        Content content = OASFactory.createContent().addMediaType(PROBLEM_JSON,
                OASFactory.createMediaType().schema(OASFactory.createSchema().ref(PROBLEM_SCHEMA)));
        APIResponse response = OASFactory.createAPIResponse().description(description).content(content);
        if (status == 409 || status == 503) {
            response.addHeader("Retry-After", OASFactory.createHeader()
                    .description("Seconds to wait before retrying with the same key.")
                    .schema(SchemaTypes.integer()));
        }
        if (status == 401 && !settings.authenticationChallenge().isEmpty()) {
            response.addHeader("WWW-Authenticate", OASFactory.createHeader()
                    .description("How to authenticate: `" + settings.authenticationChallenge() + "`.")
                    .schema(SchemaTypes.string()));
        }
        return response;
    }

    private static void addProblemSchema(OpenAPI openAPI) {
        Components components = openAPI.getComponents();
        if (components == null) {
            components = OASFactory.createComponents();
            openAPI.setComponents(components);
        }
        if (components.getSchemas() != null && components.getSchemas().containsKey(PROBLEM_SCHEMA)) {
            return;
        }
        Schema problem = SchemaTypes.object().description("RFC 9457 problem details, as the idempotency layer answers")
                .addProperty("type", SchemaTypes.string().format("uri")
                        .description("The problem type: one of the " + IdempotencyProblem.TYPE_BASE + " URIs"))
                .addProperty("title", SchemaTypes.string().description("A short, fixed summary of the problem type"))
                .addProperty("status", SchemaTypes.integer().description("The HTTP status"))
                .addProperty("detail", SchemaTypes.string().description("What happened to this request"))
                .required(List.of("type", "title", "status"));
        components.addSchema(PROBLEM_SCHEMA, problem);
    }
}
