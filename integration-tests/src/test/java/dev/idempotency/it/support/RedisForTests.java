package dev.idempotency.it.support;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import dev.idempotency.redis.RedisServer;
import dev.idempotency.testing.ChildProcess;

/**
 * A real {@code redis-server} for one test class (loopback, a port of its own, the store's ACL
 * user and password), started before Arquillian deploys (declare this extension first) and
 * stopped, by PID, after the class. Nothing on disk, unless the class is {@link AppendOnly}.
 */
public final class RedisForTests implements BeforeAllCallback, AfterAllCallback {

    /** The server keeps an append-only file (fsync every second, and at a SIGTERM): a restart keeps the records. */
    @Retention(RetentionPolicy.RUNTIME)
    @Target(ElementType.TYPE)
    public @interface AppendOnly {
    }

    private static RedisServer server;

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        Class<?> test = context.getRequiredTestClass();
        List<String> options = new ArrayList<>();
        if (test.isAnnotationPresent(AppendOnly.class)) {
            options.addAll(List.of("--appendonly", "yes", "--appendfsync", "everysec"));
        }
        server = RedisServer.start("it-" + test.getSimpleName(), ChildProcess.freePort(),
                options.toArray(String[]::new));
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        if (server != null) {
            server.stop();
            server = null;
        }
    }

    /** @return the running server */
    public static RedisServer server() {
        return server;
    }

    /** @return the store's settings ({@code idempotency.redis.*}) for this server */
    public static Map<String, String> settings() {
        return server.settings();
    }

    /**
     * @return how many records the store holds on this server (keys under its prefix)
     */
    public static long records() {
        String keys = server.cli("--scan", "--pattern", "idem:*");
        return keys.isBlank() ? 0 : keys.lines().filter(line -> !line.isBlank()).count();
    }
}
