package dev.idempotency.it.support;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * Malformed requests to an idempotent JSON endpoint, as raw bytes: bad keys (empty, too long,
 * control characters, non-ASCII, CR/LF tricks, repeated headers, sf-string edge cases), bad
 * bodies (over the limit, truncated, broken chunking, wrong content type, broken JSON) and
 * paths with dot segments. None of them may run the handler or get a 5xx.
 */
public final class MalformedRequestCorpus {

    /** Who is expected to refuse a request. */
    public enum RefusedBy {
        /** the library: a 4xx {@code application/problem+json} */
        LIBRARY,
        /** the application's own exception mappers (a body that is no payment order): a 4xx problem+json */
        APPLICATION,
        /** the HTTP server's parser or the JAX-RS runtime, before the library sees the request: any 4xx */
        SERVER,
        /** a request that never ends (its body cut short): a 4xx, or the connection closed without an answer */
        SERVER_OR_CLOSED,
        /**
         * a limit of Payara Micro's HTTP parser: a path with an invalid percent-encoding gets an
         * empty {@code 200} before any application sees it (nothing runs, nothing is disclosed)
         */
        SERVER_EMPTY_200
    }

    /**
     * One malformed request.
     *
     * @param name what is wrong with it
     * @param bytes the whole request
     * @param refusedBy who must refuse it
     */
    public record Case(String name, byte[] bytes, RefusedBy refusedBy) {
        @Override
        public String toString() {
            return name;
        }
    }

    private static final String VALID_BODY = "{\"orderId\":\"o-malformed\",\"amount\":1,\"currency\":\"EUR\"}";

    private final String path;
    private final int port;
    private final List<Case> cases = new ArrayList<>();

    private MalformedRequestCorpus(String path, int port) {
        this.path = path;
        this.port = port;
    }

    /**
     * @param path the endpoint's absolute path, e.g. {@code /hostile/api/payments}
     * @param port the server's port
     * @param contextRoot the application's context root, e.g. {@code /hostile}
     * @return the corpus
     */
    public static List<Case> against(String path, int port, String contextRoot) {
        MalformedRequestCorpus corpus = new MalformedRequestCorpus(path, port);
        corpus.keys();
        corpus.controlCharacters();
        corpus.nonAscii();
        corpus.lineBreaks();
        corpus.repeatedHeaders();
        corpus.bodies();
        corpus.paths(contextRoot);
        return List.copyOf(corpus.cases);
    }

    private void keys() {
        String[] refused = {
            "", " ", "   ", "\t", " \t ",
            "a b", "a\tb", "key with spaces",
            "a\"b", "ab\"", "a\\b", "\\",
            "a,b", "a, b", ",", "a,", ",a", ",,",
            "\"", "\"\"", "\"   ", "\"unterminated", "\"a\" trailing", "\"a\"b", "\"a\"\"b\"", "\"a\" , \"b\"",
            "\"a\\q\"", "\"a\\\"", "\"\\", "\"a\\\\", "\"tab\tinside\"",
            "k".repeat(256), "k".repeat(257), "k".repeat(300), "k".repeat(1000), "k".repeat(4000),
            "\"" + "k".repeat(256) + "\"", "\"" + "k".repeat(254) + "\\\"\\\"\"",
        };
        for (String key : refused) {
            add("key " + printable(key), request("POST", path, List.of("Idempotency-Key: " + key), json(VALID_BODY)),
                    RefusedBy.LIBRARY);
        }
        add("no key header", request("POST", path, List.of(), json(VALID_BODY)), RefusedBy.LIBRARY);
        add("key header without a colon value", request("POST", path, List.of("Idempotency-Key:"), json(VALID_BODY)),
                RefusedBy.LIBRARY);
        // Larger than the server's request-head limit: refused by the HTTP parser
        add("key of 70000 characters", request("POST", path, List.of("Idempotency-Key: " + "k".repeat(70_000)),
                json(VALID_BODY)), RefusedBy.SERVER);
    }

    private void controlCharacters() {
        for (char c = 0; c < 0x20; c++) {
            if (c == '\t' || c == '\n' || c == '\r') {
                continue;
            }
            add("key with control character 0x" + Integer.toHexString(c),
                    request("POST", path, List.of("Idempotency-Key: ab" + c + freshKey()), json(VALID_BODY)),
                    RefusedBy.SERVER);
        }
        add("key with DEL", request("POST", path, List.of("Idempotency-Key: ab\u007f" + freshKey()), json(VALID_BODY)),
                RefusedBy.SERVER);
    }

    private void nonAscii() {
        String[] values = {"caf\u00e9-", "\"caf\u00e9\"-", "\u00ff\u00fe-", "\u00c0\u00af-", "\u00e2\u0082\u00ac-"};
        for (String value : values) {
            // sent as ISO-8859-1 bytes: 0xE9, 0xFF 0xFE, an overlong UTF-8 '/', the UTF-8 bytes of the euro sign
            add("key with non-ASCII bytes " + printable(value),
                    request("POST", path, List.of("Idempotency-Key: " + value + freshKey()), json(VALID_BODY)),
                    RefusedBy.SERVER);
        }
    }

    private void lineBreaks() {
        add("key with a bare CR", request("POST", path, List.of("Idempotency-Key: ab\rcd" + freshKey()), json(VALID_BODY)),
                RefusedBy.SERVER);
        add("key with a bare LF injecting a header",
                request("POST", path, List.of("Idempotency-Key: ab\nX-Injected: 1"), json(VALID_BODY)), RefusedBy.SERVER);
        add("key folded onto a second line (obs-fold, space)",
                request("POST", path, List.of("Idempotency-Key: ab\r\n cd"), json(VALID_BODY)), RefusedBy.LIBRARY);
        add("key folded onto a second line (obs-fold, tab)",
                request("POST", path, List.of("Idempotency-Key: ab\r\n\tcd"), json(VALID_BODY)), RefusedBy.LIBRARY);
        add("CRLF-injected second key header",
                request("POST", path, List.of("Idempotency-Key: " + freshKey() + "\r\nIdempotency-Key: " + freshKey()),
                        json(VALID_BODY)), RefusedBy.LIBRARY);
    }

    private void repeatedHeaders() {
        String key = freshKey();
        add("two equal key headers", request("POST", path, List.of("Idempotency-Key: " + key, "Idempotency-Key: " + key),
                json(VALID_BODY)), RefusedBy.LIBRARY);
        add("two different key headers", request("POST", path,
                List.of("Idempotency-Key: " + freshKey(), "Idempotency-Key: " + freshKey()), json(VALID_BODY)),
                RefusedBy.LIBRARY);
        add("three key headers", request("POST", path, List.of("Idempotency-Key: " + freshKey(),
                "Idempotency-Key: " + freshKey(), "Idempotency-Key: " + freshKey()), json(VALID_BODY)), RefusedBy.LIBRARY);
        add("an empty and a valid key header", request("POST", path,
                List.of("Idempotency-Key: ", "Idempotency-Key: " + freshKey()), json(VALID_BODY)), RefusedBy.LIBRARY);
        add("key headers in two spellings", request("POST", path,
                List.of("idempotency-key: " + freshKey(), "IDEMPOTENCY-KEY: " + freshKey()), json(VALID_BODY)),
                RefusedBy.LIBRARY);
    }

    private void bodies() {
        // over the 16 MiB default limit, declared: refused before a byte of it is read
        add("body declared 17 MiB", request("POST", path, List.of("Idempotency-Key: " + freshKey(),
                "Content-Type: application/json", "Content-Length: " + (17 << 20)), "{\"orderId\":".getBytes(StandardCharsets.US_ASCII)),
                RefusedBy.LIBRARY);
        add("body declared 2^62 bytes", request("POST", path, List.of("Idempotency-Key: " + freshKey(),
                "Content-Type: application/json", "Content-Length: " + (1L << 62)), new byte[0]), RefusedBy.LIBRARY);
        // over the limit, chunked: refused once the limit is crossed
        add("chunked body of 17 MiB", chunked(List.of("Idempotency-Key: " + freshKey(), "Content-Type: application/json"),
                new byte[17 << 20], 1 << 20), RefusedBy.LIBRARY);
        // shorter than declared: the stream ends early
        add("body truncated (declared 2000, sent 40)", request("POST", path, List.of("Idempotency-Key: " + freshKey(),
                "Content-Type: application/json", "Content-Length: 2000"), VALID_BODY.substring(0, 40).getBytes(StandardCharsets.US_ASCII)),
                RefusedBy.SERVER_OR_CLOSED);
        add("chunked body truncated mid-chunk", concat(head("POST", path, List.of("Idempotency-Key: " + freshKey(),
                "Content-Type: application/json", "Transfer-Encoding: chunked")), "64\r\n{\"orderId\":".getBytes(StandardCharsets.US_ASCII)),
                RefusedBy.SERVER_OR_CLOSED);
        add("chunk size not hexadecimal", concat(head("POST", path, List.of("Idempotency-Key: " + freshKey(),
                "Content-Type: application/json", "Transfer-Encoding: chunked")), "zz\r\n{}\r\n0\r\n\r\n".getBytes(StandardCharsets.US_ASCII)),
                RefusedBy.SERVER);
        add("Content-Length not a number", request("POST", path, List.of("Idempotency-Key: " + freshKey(),
                "Content-Type: application/json", "Content-Length: ten"), VALID_BODY.getBytes(StandardCharsets.US_ASCII)),
                RefusedBy.SERVER);
        add("negative Content-Length", request("POST", path, List.of("Idempotency-Key: " + freshKey(),
                "Content-Type: application/json", "Content-Length: -5"), VALID_BODY.getBytes(StandardCharsets.US_ASCII)),
                RefusedBy.SERVER);
        add("two different Content-Lengths", request("POST", path, List.of("Idempotency-Key: " + freshKey(),
                "Content-Type: application/json", "Content-Length: 5", "Content-Length: " + VALID_BODY.length()),
                VALID_BODY.getBytes(StandardCharsets.US_ASCII)), RefusedBy.SERVER);
        add("Content-Length and chunked at once (smuggling)", concat(head("POST", path, List.of("Idempotency-Key: " + freshKey(),
                "Content-Type: application/json", "Content-Length: 4", "Transfer-Encoding: chunked")),
                "zz\r\nGET / HTTP/1.1\r\n\r\n".getBytes(StandardCharsets.US_ASCII)), RefusedBy.SERVER);
        for (String type : new String[] {"text/plain", "application/xml", "application/x-www-form-urlencoded",
            "multipart/form-data; boundary=x", "application/octet-stream", "image/png", "application/jsonx",
            "application", "/", "application/json; charset=\u00ff"}) {
            add("content type " + printable(type), request("POST", path, List.of("Idempotency-Key: " + freshKey(),
                    "Content-Type: " + type, "Content-Length: " + VALID_BODY.length()), VALID_BODY.getBytes(StandardCharsets.US_ASCII)),
                    RefusedBy.SERVER);
        }
        add("no content type", concat(head("POST", path, List.of("Idempotency-Key: " + freshKey(),
                "Content-Length: " + VALID_BODY.length())), VALID_BODY.getBytes(StandardCharsets.US_ASCII)), RefusedBy.SERVER);
        for (String broken : new String[] {"{\"orderId\":", "{", "[1,2", "not json", "{\"amount\":\"ten\"}", "\u00ff\u00fe{}",
            "{\"orderId\":\"o\"}}", "{}", "null", "{\"orderId\":\"o\",\"amount\":-1,\"currency\":\"EUR\"}",
            "{\"orderId\":\"o\",\"amount\":1,\"currency\":\"euro\"}"}) {
            add("broken JSON " + printable(broken), request("POST", path, List.of("Idempotency-Key: " + freshKey()),
                    json(broken)), RefusedBy.APPLICATION);
        }
    }

    private void paths(String contextRoot) {
        String[] paths = {
            path + "/../../../../etc/passwd",
            path + "/%2e%2e/%2e%2e/WEB-INF/web.xml",
            contextRoot + "/api/payments/..%2f..%2fWEB-INF%2fweb.xml",
            contextRoot + "/../" + contextRoot + "/WEB-INF/web.xml",
            contextRoot + "/WEB-INF/web.xml",
            contextRoot + "/api/%2e%2e/WEB-INF/classes/META-INF/microprofile-config.properties",
            path + "/%00",
            path + "/..;/..;/WEB-INF/web.xml",
            "/../../etc/passwd",
        };
        for (String target : paths) {
            add("path " + target, request("POST", target, List.of("Idempotency-Key: " + freshKey()), json(VALID_BODY)),
                    RefusedBy.SERVER);
        }
        add("path with an invalid percent-encoding", request("POST", path + "/%zz", List.of("Idempotency-Key: " + freshKey()),
                json(VALID_BODY)), RefusedBy.SERVER_EMPTY_200);
    }

    private void add(String name, byte[] bytes, RefusedBy refusedBy) {
        cases.add(new Case(name, bytes, refusedBy));
    }

    private byte[] request(String method, String target, List<String> headers, byte[] body) {
        List<String> all = new ArrayList<>(headers);
        if (all.stream().noneMatch(h -> h.regionMatches(true, 0, "Content-Length:", 0, 15))) {
            all.add("Content-Length: " + body.length);
        }
        if (all.stream().noneMatch(h -> h.regionMatches(true, 0, "Content-Type:", 0, 13))) {
            all.add("Content-Type: application/json");
        }
        return concat(head(method, target, all), body);
    }

    private static byte[] json(String body) {
        return body.getBytes(StandardCharsets.ISO_8859_1);
    }

    private byte[] head(String method, String target, List<String> headers) {
        StringBuilder head = new StringBuilder(method).append(' ').append(target).append(" HTTP/1.1\r\n")
                .append("Host: localhost:").append(port).append("\r\n")
                .append("Connection: close\r\n");
        headers.forEach(header -> head.append(header).append("\r\n"));
        return head.append("\r\n").toString().getBytes(StandardCharsets.ISO_8859_1);
    }

    private byte[] chunked(List<String> headers, byte[] body, int chunk) {
        List<String> all = new ArrayList<>(headers);
        all.add("Transfer-Encoding: chunked");
        ByteArrayOutputStream out = new ByteArrayOutputStream(body.length + 1024);
        out.writeBytes(head("POST", path, all));
        for (int offset = 0; offset < body.length; offset += chunk) {
            int n = Math.min(chunk, body.length - offset);
            out.writeBytes((Integer.toHexString(n) + "\r\n").getBytes(StandardCharsets.US_ASCII));
            out.write(body, offset, n);
            out.writeBytes("\r\n".getBytes(StandardCharsets.US_ASCII));
        }
        out.writeBytes("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        return out.toByteArray();
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] all = new byte[a.length + b.length];
        System.arraycopy(a, 0, all, 0, a.length);
        System.arraycopy(b, 0, all, a.length, b.length);
        return all;
    }

    private static String freshKey() {
        return UUID.randomUUID().toString();
    }

    private static String printable(String s) {
        StringBuilder out = new StringBuilder("'");
        String shown = s.length() > 40 ? s.substring(0, 20) + "...(" + s.length() + " chars)" : s;
        for (char c : shown.toCharArray()) {
            out.append(c < 0x20 || c > 0x7e ? String.format("\\x%02x", (int) c) : String.valueOf(c));
        }
        return out.append('\'').toString();
    }
}
