package dev.idempotency.it.resources;

import java.nio.charset.StandardCharsets;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigProvider;
import org.infinispan.client.hotrod.Flag;
import org.infinispan.client.hotrod.MetadataValue;
import org.infinispan.client.hotrod.RemoteCache;
import org.infinispan.client.hotrod.RemoteCacheManager;
import org.infinispan.commons.configuration.StringConfiguration;

import dev.idempotency.infinispan.InfinispanConnection;
import dev.idempotency.infinispan.InfinispanSettings;

/**
 * The HTTP benchmark's physical floor on Infinispan: an unannotated method that makes, itself, the
 * Hot Rod round trips an owner-safe first execution cannot avoid (putIfAbsent returning the
 * winner, getWithMetadata for the version, replaceWithVersion with the answer) on a cache of the
 * store's configuration, with the client the store builds from the same settings.
 */
@Path("bench/raw-hotrod")
@ApplicationScoped
public class RawHotRodResource {

    private static final byte[] CLAIM = new byte[110];
    private RemoteCacheManager manager;
    private RemoteCache<String, byte[]> cache;
    private RemoteCache<String, byte[]> returning;

    @PostConstruct
    void connect() {
        Config config = ConfigProvider.getConfig();
        Properties client = new Properties();
        for (String name : config.getPropertyNames()) {
            if (name.startsWith(InfinispanSettings.CLIENT_PREFIX)) {
                client.setProperty(name, config.getValue(name, String.class));
            }
        }
        manager = new RemoteCacheManager(InfinispanConnection.clientConfiguration(client));
        cache = manager.administration().getOrCreateCache("raw-http-bench", new StringConfiguration(
                "<distributed-cache mode=\"SYNC\" owners=\"2\"><encoding media-type=\"application/x-protostream\"/>"
                        + "</distributed-cache>"));
        returning = cache.withFlags(Flag.FORCE_RETURN_VALUE);
    }

    @PreDestroy
    void close() {
        manager.close();
    }

    /** @return the answer the idempotent method gives, after the three round trips */
    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    @Produces(MediaType.APPLICATION_JSON)
    public Response firstExecution(@HeaderParam("Idempotency-Key") String key, String body) {
        if (returning.putIfAbsent(key, CLAIM, 600, TimeUnit.SECONDS) != null) {
            return Response.status(409).build();
        }
        MetadataValue<byte[]> claimed = cache.getWithMetadata(key);
        byte[] answer = BenchResource.ANSWER.getBytes(StandardCharsets.UTF_8);
        cache.replaceWithVersion(key, answer, claimed.getVersion(), 1800);
        return Response.ok(BenchResource.ANSWER).build();
    }
}
