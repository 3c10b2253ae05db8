package dev.idempotency.config;

/**
 * Where an HTTP endpoint's key comes from: a request header, or a JSON Pointer into the body.
 *
 * @param header the header; {@code ""} for the library's key header ({@code idempotency.key-header})
 * @param bodyPointer where the key is in the JSON body, or {@code null} when it comes from a header
 */
public record KeySource(String header, BodyPointer bodyPointer) {

    /** The library's key header: the default, and what a non-HTTP method's policy holds. */
    public static final KeySource DEFAULT = new KeySource("", null);

    /** @return whether the key is read from the body */
    public boolean fromBody() {
        return bodyPointer != null;
    }
}
