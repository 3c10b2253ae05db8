package dev.idempotency.jaxrs.internal;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;

/**
 * Holds a response body back while it is written, so that its outcome can be stored BEFORE the
 * client sees it: a client that got the response and retries at once always finds the completed
 * record. Past the cap it stops holding: what it held goes out, the rest streams through, and
 * the body is not stored.
 */
public final class CapturingOutputStream extends OutputStream {

    private final OutputStream target;
    private final int cap;
    private final Runnable beforeOverflow;
    private final ByteArrayOutputStream held = new ByteArrayOutputStream();
    private boolean overflowed;

    /**
     * @param target the real entity stream
     * @param cap the largest body to hold and store
     * @param beforeOverflow runs once, before the first byte passes through uncaptured: the
     *     outcome must be recorded then, since the client may have it (or part of it) from then on
     */
    public CapturingOutputStream(OutputStream target, int cap, Runnable beforeOverflow) {
        this.target = target;
        this.cap = cap;
        this.beforeOverflow = beforeOverflow;
    }

    @Override
    public void write(int b) throws IOException {
        write(new byte[] {(byte) b}, 0, 1);
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
        if (!overflowed && held.size() + len > cap) {
            overflowed = true;
            beforeOverflow.run();
            held.writeTo(target);
            held.reset();
        }
        if (overflowed) {
            target.write(b, off, len);
        } else {
            held.write(b, off, len);
        }
    }

    @Override
    public void flush() throws IOException {
        if (overflowed) {
            target.flush();
        }
    }

    @Override
    public void close() {
        // the real stream belongs to the container; it is flushed and closed after the writers ran
    }

    /** @return whether the body went over the cap and streamed through unstored */
    public boolean overflowed() {
        return overflowed;
    }

    /** @return the held body (empty after an overflow) */
    public byte[] heldBytes() {
        return held.toByteArray();
    }

    /**
     * Sends the held body to the real stream.
     *
     * @throws IOException when writing fails
     */
    public void release() throws IOException {
        held.writeTo(target);
        held.reset();
    }
}
