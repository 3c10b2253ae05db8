package dev.idempotency.redis;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Certificates for TLS tests, made with the {@code openssl} command in a folder of their own: a
 * test CA, a server certificate it signs for 127.0.0.1, one it signs for another host, and a
 * second CA that signs nothing the servers use. Valid for two days.
 */
public final class TestCertificates {

    private static final Path OPENSSL = Path.of(System.getProperty("openssl", "/usr/bin/openssl"));

    public final Path dir;

    private TestCertificates(Path dir) {
        this.dir = dir;
    }

    /**
     * @param dir the folder, created if needed; what an earlier run left there is made anew
     * @return the certificates, written
     */
    public static TestCertificates create(Path dir) throws IOException, InterruptedException {
        TestCertificates certificates = new TestCertificates(dir.toAbsolutePath());
        Files.createDirectories(certificates.dir);
        certificates.authority("ca");
        certificates.authority("other-ca");
        certificates.server("server", "IP:127.0.0.1");
        certificates.server("elsewhere", "DNS:elsewhere.test");
        return certificates;
    }

    /** @return the test CA's certificate, PEM: what a client is told to trust */
    public Path authority() {
        return dir.resolve("ca.crt");
    }

    /** @return a CA's certificate that signed none of the servers' certificates */
    public Path otherAuthority() {
        return dir.resolve("other-ca.crt");
    }

    /**
     * @param name {@code server} (for 127.0.0.1) or {@code elsewhere} (for elsewhere.test only)
     * @return the redis-server options that serve that certificate on the TLS port
     */
    public List<String> serverOptions(String name) {
        return List.of("--tls-cert-file", dir.resolve(name + ".crt").toString(), "--tls-key-file",
                dir.resolve(name + ".key").toString(), "--tls-ca-cert-file", authority().toString(),
                "--tls-auth-clients", "no");
    }

    private void authority(String name) throws IOException, InterruptedException {
        openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=idempotency test " + name,
                "-keyout", name + ".key", "-out", name + ".crt");
    }

    private void server(String name, String subjectAltName) throws IOException, InterruptedException {
        openssl("req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=" + name, "-keyout", name + ".key", "-out",
                name + ".csr");
        Files.writeString(dir.resolve(name + ".ext"), "subjectAltName=" + subjectAltName + "\n");
        openssl("x509", "-req", "-in", name + ".csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial", "-days",
                "2", "-extfile", name + ".ext", "-out", name + ".crt");
    }

    private void openssl(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(OPENSSL.toString()));
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
            process.destroyForcibly();
            throw new IllegalStateException("openssl " + String.join(" ", args) + " failed: " + out);
        }
    }
}
