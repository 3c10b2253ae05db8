package dev.idempotency.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.annotation.Annotation;
import java.time.Duration;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.util.TypeLiteral;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.idempotency.spi.ClaimResult;
import dev.idempotency.spi.IdempotencyStore;
import dev.idempotency.spi.IdempotencyStoreException;

/** Undeploying: a closed store stays closed (no new client, no new threads), and the application's client is got once. */
class RedisCloseTest {

    private RedisServer server;
    private RedisConnection connection;

    @AfterEach
    void stop() throws Exception {
        if (connection != null) {
            connection.close();
        }
        if (server != null) {
            server.stop();
        }
    }

    private static RedisSettings settings(Map<String, String> values) {
        return RedisSettings.load(key -> Optional.ofNullable(values.get(key)));
    }

    private static long lettuceThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(thread -> thread.isAlive() && thread.getName().toLowerCase().contains("lettuce")).count();
    }

    @Test
    void aCallAfterCloseFailsAndStartsNoClient() throws Exception {
        server = RedisServer.start("closing", 7326);
        connection = new RedisConnection(settings(server.settings()));
        connection.start(); // as at deployment: the client's one-time start-up is paid there
        IdempotencyStore store = new RedisIdempotencyStore(connection);
        assertThat(store.claim(UUID.randomUUID().toString(), "fp", Duration.ofMinutes(1)))
                .isInstanceOf(ClaimResult.Acquired.class);
        assertThat(lettuceThreads()).as("the client's threads while it runs").isPositive();

        connection.close();
        long afterClose = lettuceThreads();

        assertThatThrownBy(() -> store.claim(UUID.randomUUID().toString(), "fp", Duration.ofMinutes(1)))
                .isInstanceOf(IdempotencyStoreException.class).hasMessageContaining("IDEMP0834")
                .hasMessageContaining("closed");
        assertThatThrownBy(() -> store.find("k")).isInstanceOf(IdempotencyStoreException.class)
                .hasMessageContaining("IDEMP0834");
        Thread.sleep(200);
        assertThat(lettuceThreads()).as("no client started after close").isLessThanOrEqualTo(afterClose);
    }

    @Test
    void theApplicationsClientIsGotOnceHoweverOftenTheStoreConnects() throws Exception {
        RedisClient application = RedisClient.create(RedisURI.create("redis://127.0.0.1:7327")); // nobody listens
        application.setOptions(ClientOptions.builder()
                .socketOptions(SocketOptions.builder().connectTimeout(Duration.ofMillis(300)).build()).build());
        AtomicInteger got = new AtomicInteger();
        try {
            connection = new RedisConnection(settings(Map.of("idempotency.redis.timeout", "PT0.3S")));
            connection.applicationClient = new OneBean(application, got);
            IdempotencyStore store = new RedisIdempotencyStore(connection);
            for (int i = 0; i < 3; i++) {
                assertThatThrownBy(() -> store.find("k")).isInstanceOf(IdempotencyStoreException.class);
            }
            assertThat(got).as("Instance.get() calls (each may be a new @Dependent client)").hasValue(1);
        } finally {
            connection.close();
            connection = null;
            application.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
    }

    /** An {@code Instance} of one bean that counts {@link #get()}. */
    private record OneBean(AbstractRedisClient client, AtomicInteger got) implements Instance<AbstractRedisClient> {

        @Override
        public AbstractRedisClient get() {
            got.incrementAndGet();
            return client;
        }

        @Override
        public boolean isUnsatisfied() {
            return false;
        }

        @Override
        public boolean isAmbiguous() {
            return false;
        }

        @Override
        public Iterator<AbstractRedisClient> iterator() {
            return List.of(get()).iterator();
        }

        @Override
        public Instance<AbstractRedisClient> select(Annotation... qualifiers) {
            throw new UnsupportedOperationException();
        }

        @Override
        public <U extends AbstractRedisClient> Instance<U> select(Class<U> subtype, Annotation... qualifiers) {
            throw new UnsupportedOperationException();
        }

        @Override
        public <U extends AbstractRedisClient> Instance<U> select(TypeLiteral<U> subtype, Annotation... qualifiers) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void destroy(AbstractRedisClient instance) {
        }

        @Override
        public Handle<AbstractRedisClient> getHandle() {
            throw new UnsupportedOperationException();
        }

        @Override
        public Iterable<? extends Handle<AbstractRedisClient>> handles() {
            throw new UnsupportedOperationException();
        }
    }
}
