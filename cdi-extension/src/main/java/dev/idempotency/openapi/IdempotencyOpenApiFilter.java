package dev.idempotency.openapi;

import java.util.logging.Level;
import java.util.logging.Logger;

import jakarta.enterprise.inject.spi.CDI;

import org.eclipse.microprofile.openapi.OASFilter;
import org.eclipse.microprofile.openapi.models.OpenAPI;

import dev.idempotency.cdi.IdempotencyRuntime;
import dev.idempotency.internal.Messages;

/**
 * Documents the HTTP contract of every {@code @Idempotent} operation in the application's OpenAPI
 * document (see {@link OperationDocumenter} for what is added). Registered as
 * {@code mp.openapi.filter} by {@link IdempotencyOpenApiConfigSource}; an application with a filter
 * of its own calls {@code new IdempotencyOpenApiFilter().filterOpenAPI(openAPI)} from it.
 *
 * <p>The server builds the document on a thread of its own (Payara: once, on the first request
 * for it): the filter sets the thread's context class loader to the library's, which in a WAR is
 * the application's, before it looks the library up through CDI. Resource classes that are not
 * CDI beans are only known once JAX-RS started: on a server that builds the document earlier they
 * are left out. Turned off with {@code idempotency.openapi.enabled=false}.
 */
public class IdempotencyOpenApiFilter implements OASFilter {

    /** The MicroProfile OpenAPI setting naming the filter. */
    public static final String MP_OPENAPI_FILTER = "mp.openapi.filter";

    private static final Logger LOG = Logger.getLogger(IdempotencyOpenApiFilter.class.getName());

    @Override
    public void filterOpenAPI(OpenAPI openAPI) {
        Thread thread = Thread.currentThread();
        ClassLoader previous = thread.getContextClassLoader();
        thread.setContextClassLoader(IdempotencyOpenApiFilter.class.getClassLoader());
        try {
            IdempotencyRuntime runtime = CDI.current().select(IdempotencyRuntime.class).get();
            if (runtime.settings().openApiEnabled()) {
                int documented = new OperationDocumenter(runtime.settings(), runtime.httpOperations()).document(openAPI);
                LOG.fine(() -> documented + " @Idempotent operation(s) documented in the OpenAPI document");
            }
        } catch (RuntimeException e) {
            // The document is still served, only without the idempotency contract.
            LOG.log(Level.WARNING, Messages.openApiNotDocumented(), e);
        } finally {
            thread.setContextClassLoader(previous);
        }
    }
}
