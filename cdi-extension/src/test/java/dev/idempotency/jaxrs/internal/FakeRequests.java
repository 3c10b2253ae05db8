package dev.idempotency.jaxrs.internal;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.StringReader;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.Principal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.core.AbstractMultivaluedMap;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.MultivaluedMap;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.SecurityContext;
import jakarta.ws.rs.core.UriInfo;
import jakarta.ws.rs.ext.WriterInterceptorContext;

import dev.idempotency.AnonymousCallers;
import dev.idempotency.IdempotencyEvent;
import dev.idempotency.IdempotencyFingerprint;
import dev.idempotency.IdempotencyOutcome;
import dev.idempotency.IdempotencyScope;
import dev.idempotency.Idempotent;
import dev.idempotency.cdi.CurrentHttpClaim;
import dev.idempotency.claim.EventPublisher;
import dev.idempotency.claim.HttpClaim;
import dev.idempotency.claim.InProgressWaits;
import dev.idempotency.claim.ReleaseRetries;
import dev.idempotency.claim.TenantLookup;
import dev.idempotency.claim.TransactionBinding;
import dev.idempotency.config.LibrarySettings;
import dev.idempotency.config.Policies;
import dev.idempotency.spi.support.TransactionGuard;
import dev.idempotency.store.InMemoryIdempotencyStore;
import dev.idempotency.store.RecordingStore;
import dev.idempotency.store.ReplayCache;
import dev.idempotency.tokens.TokenRegistry;

/**
 * In-JVM stand-ins for what a JAX-RS container hands the library's filters (request, response and
 * writer contexts, {@link UriInfo}, {@link SecurityContext}), and a {@link Server} that takes one
 * request through them as a container does: the key filter, then the resource method (seen by the
 * CDI interceptor, which marks the claim entered), then the response filter, then the writer
 * interceptor around a body writer. Each fake answers the few methods the library calls and
 * throws on any other, so that a new dependency on the container shows up here first.
 */
final class FakeRequests {

    static final String KEY = "Idempotency-Key";
    static final String REPLAYED_HEADER = "Idempotent-Replayed";

    private FakeRequests() {
    }

    /**
     * The resource class whose {@code @Idempotent} methods the tests' endpoints stand for. Their
     * HTTP method designators are read at deployment: a key or fingerprint from the body needs one.
     */
    @Idempotent(lease = "PT10S")
    static class Payments {
        @POST
        public Response create(String body) {
            return null;
        }

        @POST
        @Idempotent(lease = "PT10S", failOpen = true)
        public Response createOrRunUnprotected(String body) {
            return null;
        }

        @POST
        @Idempotent(lease = "PT10S", pinServerErrors = true)
        public Response createPinningServerErrors(String body) {
            return null;
        }

        @POST
        @Idempotent(lease = "PT10S", required = false)
        public Response createWithOptionalKey(String body) {
            return null;
        }

        @POST
        @Idempotent(lease = "PT10S", serverIssuedKeys = true)
        public Response createWithIssuedToken(String body) {
            return null;
        }

        @POST
        @Idempotent(lease = "PT10S", scope = IdempotencyScope.TENANT)
        public Response createForTenant(String body) {
            return null;
        }

        @POST
        @Idempotent(lease = "PT10S", scope = IdempotencyScope.TENANT_PRINCIPAL)
        public Response createForTenantUser(String body) {
            return null;
        }

        @POST
        @Idempotent(lease = "PT10S", anonymous = AnonymousCallers.REJECT)
        public Response createForMembers(String body) {
            return null;
        }

        /** A GitHub webhook receiver: the delivery id is the key. */
        @POST
        @Idempotent(lease = "PT10S", keyHeader = "X-GitHub-Delivery")
        public Response github(String body) {
            return null;
        }

        /** A CloudEvents (binary mode) receiver: the event id alone decides. */
        @POST
        @Idempotent(lease = "PT10S", keyHeader = "ce-id", fingerprint = IdempotencyFingerprint.NONE)
        public Response cloudEvent(String body) {
            return null;
        }

        /** A Stripe webhook receiver: the event's id in the body is the key. */
        @POST
        @Consumes(MediaType.APPLICATION_JSON)
        @Idempotent(lease = "PT10S", keyFromBody = "/id")
        public Response stripe(String body) {
            return null;
        }

        @POST
        @Idempotent(lease = "PT10S", keyFromBody = "/data/id", required = false)
        public Response bodyKeyIfAny(String body) {
            return null;
        }

        @POST
        @Consumes({MediaType.APPLICATION_JSON, "application/merge-patch+json"})
        @Idempotent(lease = "PT10S", fingerprint = IdempotencyFingerprint.JSON)
        public Response createJson(String body) {
            return null;
        }

        /** JSON fingerprint on an endpoint that takes anything: a body that is no JSON counts as bytes. */
        @POST
        @Idempotent(lease = "PT10S", fingerprint = IdempotencyFingerprint.JSON)
        public Response createJsonOrBytes(String body) {
            return null;
        }

        @POST
        @Consumes(MediaType.APPLICATION_JSON)
        @Idempotent(lease = "PT10S", fingerprint = IdempotencyFingerprint.JSON,
                fingerprintMembers = {"/currency", "/amount", "/items/0/sku"})
        public Response charge(String body) {
            return null;
        }

        @POST
        @Idempotent(lease = "PT10S", fingerprint = IdempotencyFingerprint.MULTIPART)
        public Response upload(String body) {
            return null;
        }

        @POST
        @Idempotent(lease = "PT10S", fingerprint = IdempotencyFingerprint.NONE)
        public Response createByKeyAlone(String body) {
            return null;
        }
    }

    /**
     * @param method a method of {@link Payments}
     * @param async whether it answers asynchronously
     * @param intercepted whether the CDI interceptor sees it
     * @return the endpoint, its policy resolved as at deployment (no configuration)
     */
    static HttpEndpoint endpoint(String method, boolean async, boolean intercepted) {
        try {
            Method resourceMethod = Payments.class.getMethod(method, String.class);
            return new HttpEndpoint(Policies.unconfigured(Payments.class, resourceMethod), Payments.class,
                    resourceMethod, async, intercepted);
        } catch (NoSuchMethodException e) {
            throw new IllegalArgumentException(e);
        }
    }

    /** Wraps a stream in a compressor: gzip, zlib or raw deflate. */
    interface Compressor {
        java.util.zip.DeflaterOutputStream on(java.io.OutputStream out) throws IOException;
    }

    /** @return the text written through the compressor, UTF-8 */
    static byte[] compressed(String text, Compressor compressor) {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        try (java.util.zip.DeflaterOutputStream compressing = compressor.on(out)) {
            compressing.write(text.getBytes(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new AssertionError(e);
        }
        return out.toByteArray();
    }

    /** @return the text gzipped, its header's modification time set to {@code mtime} (as tools write it) */
    static byte[] gzip(String text, int mtime) {
        byte[] bytes = compressed(text, java.util.zip.GZIPOutputStream::new);
        bytes[4] = (byte) mtime; // MTIME, little-endian, outside the data's CRC
        return bytes;
    }

    /**
     * @param pathAndQuery e.g. {@code /payments?currency=eur}
     * @param body the request body
     * @return a POST request
     */
    static Request post(String pathAndQuery, String body) {
        return postTo("http://localhost:8080", pathAndQuery, body);
    }

    /**
     * @param pathAndQuery e.g. {@code /payments}
     * @param body the request body's bytes, as sent (compressed, say)
     * @return a POST request to the local server
     */
    static Request post(String pathAndQuery, byte[] body) {
        return new Request("POST", URI.create("http://localhost:8080" + pathAndQuery), body);
    }

    /**
     * @param origin e.g. {@code https://Acme.example.com:8443}
     * @param pathAndQuery e.g. {@code /payments}
     * @param body the request body
     * @return a POST request sent to that host
     */

    static Request postTo(String origin, String pathAndQuery, String body) {
        return new Request("POST", URI.create(origin + pathAndQuery), body.getBytes(StandardCharsets.UTF_8));
    }

    /** One request, as the container shows it to a filter. */
    static final class Request {
        final String method;
        final URI uri;
        final MultivaluedMap<String, String> headers = caseInsensitive();
        final Map<String, Object> properties = new LinkedHashMap<>();
        /** The request's own request-scoped claim holder, as CDI keeps one per request. */
        final CurrentHttpClaim scoped = new CurrentHttpClaim();
        InputStream entity;
        Principal principal;
        Response aborted;
        /** The resource instance JAX-RS matched: by default what CDI hands out for an intercepted bean, a subclass. */
        Object matched = new Payments() {
        };
        final ContainerRequestContext context;

        private Request(String method, URI uri, byte[] body) {
            this.method = method;
            this.uri = uri;
            this.entity = new ByteArrayInputStream(body);
            Map<String, Reply> answers = new HashMap<>();
            answers.put("getHeaders", args -> headers);
            answers.put("getHeaderString", args -> joined(headers.get((String) args[0])));
            answers.put("getEntityStream", args -> entity);
            answers.put("setEntityStream", args -> {
                entity = (InputStream) args[0];
                return null;
            });
            answers.put("hasEntity", args -> entity != null);
            answers.put("getMethod", args -> this.method);
            answers.put("getUriInfo", args -> fake(UriInfo.class, Map.of(
                    "getRequestUri", none -> this.uri,
                    "getPath", none -> this.uri.getPath(),
                    "getMatchedResources", none -> List.of(matched))));
            answers.put("getSecurityContext", args -> fake(SecurityContext.class, Map.of(
                    "getUserPrincipal", none -> principal,
                    "isUserInRole", role -> false,
                    "isSecure", none -> false)));
            answers.put("abortWith", args -> {
                if (aborted != null) {
                    throw new IllegalStateException("aborted twice");
                }
                aborted = (Response) args[0];
                return null;
            });
            answers.put("getProperty", args -> properties.get((String) args[0]));
            answers.put("setProperty", args -> {
                if (args[1] == null) {
                    properties.remove((String) args[0]);
                } else {
                    properties.put((String) args[0], args[1]);
                }
                return null;
            });
            answers.put("removeProperty", args -> properties.remove((String) args[0]));
            answers.put("getPropertyNames", args -> List.copyOf(properties.keySet()));
            this.context = fake(ContainerRequestContext.class, answers);
        }

        /** @param key the {@code Idempotency-Key} header to send (once more, if called twice) */
        Request key(String key) {
            headers.add(KEY, key);
            return this;
        }

        Request header(String name, String value) {
            headers.add(name, value);
            return this;
        }

        /**
         * The method runs on an instance the application created itself
         * ({@code Application.getSingletons()}): no interceptor sees it, although its class is a bean.
         */
        Request onTheApplicationsOwnInstance() {
            matched = new Payments();
            return this;
        }

        /** @param user the authenticated caller */
        Request as(String user) {
            principal = () -> user;
            return this;
        }

        /** @param caller the authenticated caller, e.g. a JWT */
        Request as(Principal caller) {
            principal = caller;
            return this;
        }

        /** @return the claim the filter admitted this request under, or {@code null} */
        HttpClaim claim() {
            return AdmittedClaims.of(context);
        }
    }

    /** What the client received. */
    static final class Answer {
        final int status;
        final Map<String, List<String>> headers;
        final byte[] body;
        /** What the body writer (or the interceptor around it) threw, or {@code null}. */
        final Exception writeFailure;

        Answer(int status, Map<String, List<String>> headers, byte[] body, Exception writeFailure) {
            this.status = status;
            this.headers = headers;
            this.body = body;
            this.writeFailure = writeFailure;
        }

        /** @return the header's first value, or {@code null} */
        String header(String name) {
            List<String> values = headers.get(name);
            return values == null || values.isEmpty() ? null : values.get(0);
        }

        String text() {
            return new String(body, StandardCharsets.UTF_8);
        }

        /** @return the problem+json body (after checking the media type) */
        JsonObject problem() {
            if (!ProblemResponses.PROBLEM_JSON.equals(header(HttpHeaders.CONTENT_TYPE))) {
                throw new AssertionError("not a problem answer: " + status + " " + headers + " " + text());
            }
            return Json.createReader(new StringReader(text())).readObject();
        }

        /** @return the last segment of the problem's type URI, e.g. {@code key-reused} */
        String problemType() {
            String type = problem().getString("type");
            return type.substring(type.lastIndexOf('/') + 1);
        }

        @Override
        public String toString() {
            return status + " " + headers + " " + text();
        }
    }

    /**
     * A container with one {@code @Idempotent} resource method: the library's filters registered
     * as {@link dev.idempotency.jaxrs.IdempotencyFeature} does.
     */
    static final class Server {
        private final IdempotencyKeyFilter filter;
        private final OutcomeRecorder recorder;
        private final HttpEndpoint endpoint;
        private final RequestScope scope;
        private int executions;

        /**
         * @param services built by the test, with {@code new AdmittedClaims(Server.requestScope())}
         * @param scope the client proxy those claims were built with
         * @param endpoint the resource method
         */
        Server(HttpServices services, RequestScope scope, HttpEndpoint endpoint) {
            this.filter = new IdempotencyKeyFilter(services, endpoint);
            this.recorder = new OutcomeRecorder(services.settings(), endpoint, new TransactionBinding(new TransactionGuard()));
            this.endpoint = endpoint;
            this.scope = scope;
        }

        /** @return a stand-in for the client proxy of the request-scoped {@link CurrentHttpClaim} */
        static RequestScope requestScope() {
            return new RequestScope();
        }

        /** @return how often the resource method ran */
        int executions() {
            return executions;
        }

        /**
         * @param request a request
         * @param resource the resource method: the request body in, the answer out
         * @return what the client got
         */
        Answer send(Request request, Function<String, Response> resource) {
            return start(request).finish(resource);
        }

        /**
         * Runs the request filter alone: the resource method has not answered yet.
         *
         * @param request a request
         * @return the exchange, to be finished
         */
        Exchange start(Request request) {
            scope.active = request;
            try {
                filter.filter(request.context);
            } catch (IOException e) {
                throw new AssertionError(e);
            } finally {
                scope.active = null;
            }
            return new Exchange(request);
        }

        /** One request on its way through the container. */
        final class Exchange {
            private final Request request;

            private Exchange(Request request) {
                this.request = request;
            }

            /** @return whether the key filter answered the request itself */
            boolean aborted() {
                return request.aborted != null;
            }

            /** Runs the resource method (unless the filter answered) and writes the answer. */
            Answer finish(Function<String, Response> resource) {
                return finish(resource, -1);
            }

            /**
             * As {@link #finish(Function)}, but the body writer fails (the client went away) after
             * so many bytes.
             */
            Answer finishWithWriterFailingAfter(int bytes, Function<String, Response> resource) {
                return finish(resource, bytes);
            }

            /**
             * The container answers after the request filters, before the resource method is
             * entered (its parameters could not be read, 415).
             */
            Answer rejectBeforeTheMethod(Response answer) {
                if (request.aborted != null) {
                    return respond(request.aborted, -1);
                }
                recorder.filter(request.context); // the last request filter: none aborted
                return respond(answer, -1);
            }

            /** A request filter after the key filter answers the request in the method's stead. */
            Answer abortInALaterFilter(Response answer) {
                return request.aborted != null ? respond(request.aborted, -1) : respond(answer, -1);
            }

            /**
             * The method answers, but its answer is never written: the container finds no writer
             * for its entity (RESTEasy looks for one after the response filters, before any writer
             * interceptor) or an outer writer interceptor throws before it proceeds; the container
             * answers {@code error} instead, through the response filters again.
             */
            Answer finishWithoutWritingThenAnswer(Function<String, Response> resource, Response error) {
                Response answered = run(resource);
                respond(answered, -1, false);
                return respond(error, -1);
            }

            /**
             * The method answers, and an application's response filter that runs before the
             * recorder's (a higher priority) throws: the container maps the exception and answers
             * {@code error} through the response filters again. The recorder never saw the answer.
             */
            Answer finishWithAnEarlierResponseFilterFailing(Function<String, Response> resource, Response error) {
                run(resource);
                return respond(error, -1);
            }

            /**
             * The method throws: the CDI interceptor ends the claim as after a failure
             * ({@link dev.idempotency.claim.TransactionBinding#releaseAfterFailure}), and an
             * exception mapper answers {@code mapped}.
             */
            Answer failWithAMappedException(dev.idempotency.claim.TransactionBinding binding, Response mapped) {
                run(body -> {
                    HttpClaim claim = request.claim();
                    if (claim != null) {
                        binding.releaseAfterFailure(claim);
                    }
                    return null;
                }, false);
                return respond(mapped, -1);
            }

            /**
             * Runs an asynchronous method, which answers later ({@link #resume}).
             *
             * @return what it will answer with
             */
            Response runWithoutAnswering(Function<String, Response> resource) {
                return run(resource);
            }

            /** The container writes the answer an asynchronous method resumed with. */
            Answer resume(Response answer) {
                return respond(answer, -1);
            }

            private Answer finish(Function<String, Response> resource, int failAfter) {
                if (request.aborted != null) {
                    return respond(request.aborted, failAfter);
                }
                return respond(run(resource), failAfter);
            }

            /** @return the resource method's answer, the request filters passed and the CDI interceptor having taken the claim first */
            private Response run(Function<String, Response> resource) {
                return run(resource, true);
            }

            /** @param returns whether the method returns (else it throws, and the interceptor sees no answer) */
            private Response run(Function<String, Response> resource, boolean returns) {
                recorder.filter(request.context); // the last request filter: none aborted
                HttpClaim taken = null;
                if (endpoint.intercepted() && request.matched.getClass() != Payments.class) {
                    taken = request.scoped.take(endpoint.method(), new Payments()); // what the CDI interceptor does first
                }
                String body;
                try {
                    body = new String(request.entity.readAllBytes(), StandardCharsets.UTF_8);
                } catch (IOException e) {
                    throw new AssertionError(e);
                }
                executions++;
                Response answer = resource.apply(body);
                if (returns && taken != null && !endpoint.async()) {
                    taken.returned(answer); // what the CDI interceptor does after a synchronous method returned
                }
                return answer;
            }

            private Answer respond(Response response, int failAfter) {
                return respond(response, failAfter, true);
            }

            /** @param writerReached whether the answer's entity reaches the writer interceptors */
            private Answer respond(Response response, int failAfter, boolean writerReached) {
                MultivaluedMap<String, Object> headers = caseInsensitive();
                response.getHeaders().forEach((name, values) -> headers.put(name, new ArrayList<>(values)));
                int[] status = {response.getStatus()};
                Object entity = response.getEntity();
                MediaType mediaType = response.getMediaType();
                ContainerResponseContext responseContext = fake(ContainerResponseContext.class, Map.of(
                        "getStatus", none -> status[0],
                        "setStatus", args -> {
                            status[0] = (Integer) args[0];
                            return null;
                        },
                        "getHeaders", none -> headers,
                        "hasEntity", none -> entity != null,
                        "getEntity", none -> entity,
                        "getMediaType", none -> mediaType));
                recorder.filter(request.context, responseContext);

                ByteArrayOutputStream wire = new ByteArrayOutputStream();
                Exception failure = null;
                if (entity != null && writerReached) {
                    OutputStream[] out = {wire};
                    Map<String, Reply> answers = new HashMap<>();
                    answers.put("getOutputStream", none -> out[0]);
                    answers.put("setOutputStream", args -> {
                        out[0] = (OutputStream) args[0];
                        return null;
                    });
                    answers.put("getHeaders", none -> headers);
                    answers.put("getMediaType", none -> mediaType);
                    answers.put("getEntity", none -> entity);
                    answers.put("getProperty", args -> request.properties.get((String) args[0]));
                    answers.put("proceed", none -> {
                        write(bytesOf(entity), out[0], failAfter);
                        return null;
                    });
                    WriterInterceptorContext writerContext = fake(WriterInterceptorContext.class, answers);
                    try {
                        recorder.aroundWriteTo(writerContext);
                    } catch (IOException | RuntimeException e) {
                        failure = e; // the container logs it; the client gets what was written
                    }
                }
                Map<String, List<String>> sent = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
                headers.forEach((name, values) -> values.forEach(
                        value -> sent.computeIfAbsent(name, n -> new ArrayList<>()).add(String.valueOf(value))));
                return new Answer(status[0], sent, wire.toByteArray(), failure);
            }
        }
    }

    /**
     * What the HTTP side works with, built by hand as {@link dev.idempotency.jaxrs.IdempotencyFeature}
     * builds it from the CDI runtime: the real in-memory store on a clock the test drives (behind
     * a {@link RecordingStore}), settings read from a map, a recording listener.
     */
    static final class Library {
        final AtomicLong clock = new AtomicLong(1_000_000_000L);
        final InMemoryIdempotencyStore memory = new InMemoryIdempotencyStore(1_000, clock::get);
        final RecordingStore store = new RecordingStore(memory);
        final List<IdempotencyEvent> events = new CopyOnWriteArrayList<>();
        /** {@code idempotency.*} settings; read when a server is made. */
        final Map<String, String> config = new HashMap<>();
        ReplayCache replayCache = ReplayCache.off();
        /** Where tenants come from; {@code null}: as the runtime chooses for a header or host source. */
        TenantLookup tenants;
        /** Where the last server made keeps its waiting duplicates. */
        InProgressWaits waits;

        /** @return a server for a synchronous, intercepted method of {@link Payments} */
        Server server(String method) {
            return server(method, false, true);
        }

        Server server(String method, boolean async, boolean intercepted) {
            LibrarySettings settings = LibrarySettings.load(key -> Optional.ofNullable(config.get(key)));
            RequestScope scope = Server.requestScope();
            HttpServices services = new HttpServices(store, settings, replayCache,
                    new EventPublisher(List.of(events::add)),
                    new TokenRegistry(store, Duration.ofMinutes(30), 100, false),
                    new AdmittedClaims(scope), tenants != null ? tenants : switch (settings.tenantSource()) {
                        case HEADER -> TenantLookup.header(settings.tenantHeader());
                        case HOST -> TenantLookup.host();
                        default -> TenantLookup.NONE;
                    }, waits = new InProgressWaits(settings.maxWaiting()), new ReleaseRetries());
            return new Server(services, scope, endpoint(method, async, intercepted));
        }

        /** @return the outcomes reported so far, in order */
        List<IdempotencyOutcome> outcomes() {
            return events.stream().map(IdempotencyEvent::outcome).toList();
        }

        void elapse(Duration duration) {
            clock.addAndGet(duration.toNanos() + 1);
        }
    }

    /**
     * Stands for the client proxy of the request-scoped {@link CurrentHttpClaim}: calls go to the
     * holder of the request being filtered.
     */
    static final class RequestScope extends CurrentHttpClaim {
        private Request active;

        @Override
        public void set(HttpClaim claim) {
            if (active == null) {
                throw new IllegalStateException("no request context is active");
            }
            active.scoped.set(claim);
        }

        @Override
        public HttpClaim take(Method method, Object target) {
            if (active == null) {
                throw new IllegalStateException("no request context is active");
            }
            return active.scoped.take(method, target);
        }
    }

    /** What a body writer does: the bytes, in small writes, failing after {@code failAfter} bytes if not negative. */
    private static void write(byte[] bytes, OutputStream out, int failAfter) throws IOException {
        for (int offset = 0; offset < bytes.length; offset += 7) {
            int length = Math.min(7, bytes.length - offset);
            if (failAfter >= 0 && offset + length > failAfter) {
                out.write(bytes, offset, failAfter - offset);
                throw new IOException("broken pipe: the client went away");
            }
            out.write(bytes, offset, length);
        }
    }

    private static byte[] bytesOf(Object entity) {
        return entity instanceof byte[] bytes ? bytes : String.valueOf(entity).getBytes(StandardCharsets.UTF_8);
    }

    private static String joined(List<String> values) {
        return values == null ? null : String.join(",", values);
    }

    /** @return a header map whose names are case-insensitive, as HTTP's are */
    static <V> MultivaluedMap<String, V> caseInsensitive() {
        return new AbstractMultivaluedMap<>(new TreeMap<>(String.CASE_INSENSITIVE_ORDER)) {
        };
    }

    /**
     * @param type an interface
     * @param answers what its methods answer, by name
     * @return an implementation answering those, and throwing on any other method
     */
    static <T> T fake(Class<T> type, Map<String, Reply> answers) {
        InvocationHandler handler = (proxy, method, args) -> {
            Reply reply = answers.get(method.getName());
            if (reply != null) {
                return reply.to(args == null ? new Object[0] : args);
            }
            return switch (method.getName()) {
                case "toString" -> "fake " + type.getSimpleName();
                case "hashCode" -> System.identityHashCode(proxy);
                case "equals" -> proxy == args[0];
                default -> throw new UnsupportedOperationException(
                        type.getSimpleName() + "." + method.getName() + " is not faked: the library calls it now");
            };
        };
        return type.cast(Proxy.newProxyInstance(FakeRequests.class.getClassLoader(), new Class<?>[] {type}, handler));
    }

    /** What a faked method answers. */
    @FunctionalInterface
    interface Reply {
        /**
         * @param args the call's arguments (none: empty)
         * @return the answer
         * @throws Exception what the method throws (a checked one only where it declares it)
         */
        Object to(Object[] args) throws Exception;
    }
}
