package dev.idempotency.cdi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.reflect.Proxy;
import java.security.Principal;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.core.FeatureContext;
import jakarta.ws.rs.core.SecurityContext;

import org.junit.jupiter.api.Test;

import dev.idempotency.jaxrs.IdempotencyFeature;
import dev.idempotency.jaxrs.internal.CallerNote;

/**
 * The caller of a bean called inside a JAX-RS request, from the note {@link CallerNote} keeps in
 * the request's properties (servlet attributes on a server), as {@link CurrentCaller} reads it.
 * The servers' own runs are {@code NonHttpIT}'s.
 */
class CurrentCallerNoteTest {

    private final Map<String, Object> properties = new HashMap<>();
    /** What the JAX-RS runtime answers for the request's SecurityContext: RESTEasy's is gone once it is done. */
    private final AtomicReference<SecurityContext> jaxRsSecurity = new AtomicReference<>();
    /** Whether the runtime throws when asked for the request's SecurityContext. */
    private final AtomicBoolean failing = new AtomicBoolean();
    private final ContainerRequestContext jaxRsRequest = jaxRsRequest();
    private final HttpServletRequest servletRequest = servletRequestOf(null); // the application authenticates itself
    private final CallerNote note = new CallerNote();

    @Test
    void aBeanCalledWhileJaxRsHandlesTheRequestHasTheSecurityContextsCallerAtTheCall() {
        note.filter(jaxRsRequest);
        assertThat(caller()).as("before the application's authentication filter").isNull();

        jaxRsSecurity.set(securityOf(() -> user("alice"))); // the application's authentication filter
        assertThat(caller().getName()).isEqualTo("alice");
    }

    @Test
    void aBeanCalledOnceTheRequestFiltersAreDoneKeepsTheCallerTheyLeft() {
        note.filter(jaxRsRequest);
        jaxRsSecurity.set(securityOf(() -> user("alice")));
        new CallerNote.Settled().filter(jaxRsRequest);

        jaxRsSecurity.set(null); // RESTEasy's thread context, gone once the resource method returned
        assertThat(caller()).as("a servlet filter after its chain: alice, not the servlet request's no one").isNotNull();
        assertThat(caller().getName()).isEqualTo("alice");
    }

    @Test
    void aSecurityContextSetAfterTheSettlingIsTheCallerWhileTheRuntimeAnswersIt() {
        note.filter(jaxRsRequest);
        jaxRsSecurity.set(securityOf(() -> user("gateway")));
        new CallerNote.Settled().filter(jaxRsRequest);
        jaxRsSecurity.set(securityOf(() -> user("alice"))); // a filter of the same priority, run after it

        assertThat(caller().getName()).as("the live one, not the one settled before it").isEqualTo("alice");
        note.filter(jaxRsRequest, response());
        jaxRsSecurity.set(null);
        assertThat(caller().getName()).as("kept as the answer left").isEqualTo("alice");
    }

    @Test
    void aRuntimeThatFailsToAnswerItsSecurityContextWhileSettlingLeavesTheNoteAsItWas() {
        note.filter(jaxRsRequest);
        jaxRsSecurity.set(securityOf(() -> user("alice")));
        new CallerNote.Settled().filter(jaxRsRequest);
        failing.set(true);
        note.filter(jaxRsRequest, response());
        assertThat(caller().getName()).as("asked while the runtime fails: the one kept").isEqualTo("alice");

        failing.set(false);
        jaxRsSecurity.set(null);
        assertThat(caller().getName()).isEqualTo("alice");
    }

    @Test
    void aRequestAbortedBeforeTheLastRequestFilterIsSettledByTheResponseFilter() {
        note.filter(jaxRsRequest);
        jaxRsSecurity.set(securityOf(() -> user("alice")));
        note.filter(jaxRsRequest, response()); // an abortWith skips the request filters after it

        jaxRsSecurity.set(null);
        assertThat(caller().getName()).isEqualTo("alice");
    }

    @Test
    void aRequestJaxRsNeverSawHasItsServletUser() {
        HttpServletRequest servlet = servletRequestOf(user("carol"));
        assertThat(CurrentCaller.ofHttpRequest(servlet, null).getName()).isEqualTo("carol");
    }

    @Test
    void aJaxRsRuntimeWithoutSecurityContextLeavesTheServletUser() {
        HttpServletRequest servlet = servletRequestOf(user("carol"));
        note.filter(jaxRsRequest);
        new CallerNote.Settled().filter(jaxRsRequest); // nothing to settle on
        note.filter(jaxRsRequest, response());
        assertThat(CurrentCaller.ofHttpRequest(servlet, properties.get(CurrentCaller.JAX_RS_REQUEST)).getName())
                .isEqualTo("carol");
    }

    @Test
    void anApplicationSecurityContextThatFailsFailsTheCall() {
        note.filter(jaxRsRequest);
        jaxRsSecurity.set(securityOf(() -> {
            throw new IllegalStateException("token store down");
        }));
        new CallerNote.Settled().filter(jaxRsRequest);
        assertThatThrownBy(this::caller).hasMessage("token store down");
    }

    @Test
    void aNoteOfAnotherJaxRsApiRefusesTheCallRatherThanRunningItAsAnonymous() {
        assertThatThrownBy(() -> CurrentCaller.ofHttpRequest(servletRequest, new Object()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageStartingWith("IDEMP0329: ")
                .hasMessageContaining("java.lang.Object");
    }

    @Test
    void theFeatureRegistersTheNoteForTheWholeApplication() {
        List<Object> registered = new ArrayList<>();
        FeatureContext context = (FeatureContext) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {FeatureContext.class}, (proxy, method, args) -> {
                    if (method.getName().equals("register") && args.length == 1) {
                        registered.add(args[0]);
                        return proxy;
                    }
                    throw new UnsupportedOperationException(method.getName());
                });
        assertThat(new IdempotencyFeature().configure(context)).isTrue();
        assertThat(registered).containsExactly(CallerNote.class, CallerNote.Settled.class);
    }

    private Principal caller() {
        return CurrentCaller.ofHttpRequest(servletRequest, properties.get(CurrentCaller.JAX_RS_REQUEST));
    }

    private ContainerRequestContext jaxRsRequest() {
        return (ContainerRequestContext) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {ContainerRequestContext.class}, (proxy, method, args) -> switch (method.getName()) {
                    case "setProperty" -> {
                        properties.put((String) args[0], args[1]);
                        yield null;
                    }
                    case "getProperty" -> properties.get((String) args[0]);
                    case "getSecurityContext" -> {
                        if (failing.get()) {
                            throw new IllegalStateException("no request on this thread");
                        }
                        yield jaxRsSecurity.get();
                    }
                    default -> throw new UnsupportedOperationException(method.getName());
                });
    }

    private static ContainerResponseContext response() {
        return (ContainerResponseContext) Proxy.newProxyInstance(CurrentCallerNoteTest.class.getClassLoader(),
                new Class<?>[] {ContainerResponseContext.class}, (proxy, method, args) -> {
                    throw new UnsupportedOperationException(method.getName());
                });
    }

    private static HttpServletRequest servletRequestOf(Principal user) {
        return (HttpServletRequest) Proxy.newProxyInstance(CurrentCallerNoteTest.class.getClassLoader(),
                new Class<?>[] {HttpServletRequest.class}, (proxy, method, args) -> {
                    if (method.getName().equals("getUserPrincipal")) {
                        return user;
                    }
                    throw new UnsupportedOperationException(method.getName());
                });
    }

    private static Principal user(String name) {
        return () -> name;
    }

    /** @param user what the application's SecurityContext answers, or throws */
    private static SecurityContext securityOf(java.util.function.Supplier<Principal> user) {
        return (SecurityContext) Proxy.newProxyInstance(CurrentCallerNoteTest.class.getClassLoader(),
                new Class<?>[] {SecurityContext.class}, (proxy, method, args) -> {
                    if (method.getName().equals("getUserPrincipal")) {
                        return user.get();
                    }
                    throw new UnsupportedOperationException(method.getName());
                });
    }
}
