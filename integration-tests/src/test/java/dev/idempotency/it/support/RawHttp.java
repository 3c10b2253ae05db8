package dev.idempotency.it.support;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;

/**
 * Sends bytes no well-behaved client would (two key headers, control characters, raw non-ASCII)
 * over a plain socket to loopback, and reads the status line and body.
 */
public final class RawHttp {

    private RawHttp() {
    }

    /** A raw answer. */
    public record Answer(int status, String head, String body) {
    }

    /**
     * @param base the deployment's base URI (loopback)
     * @param path the path, relative to the base
     * @param headerLines extra header lines, each without CRLF, as raw bytes (ISO-8859-1)
     * @param body the JSON body
     * @return the answer
     * @throws IOException when the exchange fails
     */
    public static Answer post(URI base, String path, String body, String... headerLines) throws IOException {
        URI target = base.resolve(path);
        byte[] bodyBytes = body.getBytes(StandardCharsets.UTF_8);
        StringBuilder request = new StringBuilder()
                .append("POST ").append(target.getRawPath()).append(" HTTP/1.1\r\n")
                .append("Host: localhost:").append(target.getPort()).append("\r\n")
                .append("Content-Type: application/json\r\n")
                .append("Content-Length: ").append(bodyBytes.length).append("\r\n")
                .append("Connection: close\r\n");
        for (String line : headerLines) {
            request.append(line).append("\r\n");
        }
        request.append("\r\n");
        byte[] head = request.toString().getBytes(StandardCharsets.ISO_8859_1);
        byte[] whole = new byte[head.length + bodyBytes.length];
        System.arraycopy(head, 0, whole, 0, head.length);
        System.arraycopy(bodyBytes, 0, whole, head.length, bodyBytes.length);
        return exchange(target.getPort(), whole);
    }

    /**
     * Sends a whole request exactly as given, then closes the sending half (so that a request
     * shorter than it claims ends there), and reads the answer until the server closes.
     *
     * @param port the server's port on loopback
     * @param request the request's bytes, request line to body
     * @return the answer; status 0 when the server closed without answering
     * @throws IOException when the exchange fails
     */
    public static Answer exchange(int port, byte[] request) throws IOException {
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
            socket.setSoTimeout(30_000);
            OutputStream out = socket.getOutputStream();
            try {
                out.write(request);
                out.flush();
                socket.shutdownOutput();
            } catch (IOException refusedMidway) {
                // the server may answer (and close) before reading a body it refuses: read that answer
            }
            InputStream in = socket.getInputStream();
            ByteArrayOutputStream all = new ByteArrayOutputStream();
            try {
                in.transferTo(all);
            } catch (IOException reset) {
                // a reset after the answer was sent: keep what arrived
            }
            String response = all.toString(StandardCharsets.ISO_8859_1);
            int split = response.indexOf("\r\n\r\n");
            String head = split < 0 ? response : response.substring(0, split);
            String rest = split < 0 ? "" : response.substring(split + 4);
            int status = head.startsWith("HTTP/1.") && head.length() >= 12 ? Integer.parseInt(head.substring(9, 12)) : 0;
            return new Answer(status, head, rest);
        }
    }
}
