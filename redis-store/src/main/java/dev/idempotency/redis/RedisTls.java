package dev.idempotency.redis;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.time.Duration;
import java.util.Optional;

import io.lettuce.core.SslOptions;

/**
 * The TLS of the store's own clients: the JDK's provider; the certificates to trust from
 * {@code trust-certificates}, read again at every connect (a renewed file is used from the next
 * connection on), else the JVM's default trust; and a TLS handshake that ends within the
 * timeout (Lettuce's own default is 10 s; its connection handshake, which the URI's timeout
 * bounds, already ended it as soon, so this only keeps the two in step).
 */
final class RedisTls {

    private RedisTls() {
    }

    /**
     * @param trustCertificates a PEM file of certificates to trust, or empty for the JVM's trust
     * @param handshakeTimeout how long a TLS handshake may take
     * @return the options for the client
     */
    static SslOptions options(Optional<Path> trustCertificates, Duration handshakeTimeout) {
        SslOptions.Builder ssl = SslOptions.builder().jdkSslProvider().handshakeTimeout(handshakeTimeout);
        // a resource opened at each connect, not trustManager(File): that one checks the file once, when
        // the client is built, and throws outside the store's coded failures if it is gone by then
        trustCertificates.ifPresent(file -> ssl.trustManager(() -> Files.newInputStream(file)));
        return ssl.build();
    }

    /**
     * Builds the TLS context the way the client does at every connect, so that a file the client
     * cannot use (DER, a key, a folder, no certificate) fails the deployment, not each connect.
     *
     * @param trustCertificates the file
     * @throws IOException when the file cannot be read
     * @throws GeneralSecurityException when no trust manager can be made of it
     * @throws IllegalArgumentException when it holds no certificate in PEM (Netty's word for it)
     */
    static void check(Path trustCertificates) throws IOException, GeneralSecurityException {
        options(Optional.of(trustCertificates), Duration.ofSeconds(1)).createSslContextBuilder().build();
    }
}
