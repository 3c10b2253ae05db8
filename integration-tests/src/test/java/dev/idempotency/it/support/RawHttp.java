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
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), target.getPort())) {
            socket.setSoTimeout(30_000);
            OutputStream out = socket.getOutputStream();
            out.write(request.toString().getBytes(StandardCharsets.ISO_8859_1));
            out.write(bodyBytes);
            out.flush();
            InputStream in = socket.getInputStream();
            ByteArrayOutputStream all = new ByteArrayOutputStream();
            in.transferTo(all);
            String response = all.toString(StandardCharsets.ISO_8859_1);
            int split = response.indexOf("\r\n\r\n");
            String head = split < 0 ? response : response.substring(0, split);
            String rest = split < 0 ? "" : response.substring(split + 4);
            int status = Integer.parseInt(head.substring(9, 12));
            return new Answer(status, head, rest);
        }
    }
}
