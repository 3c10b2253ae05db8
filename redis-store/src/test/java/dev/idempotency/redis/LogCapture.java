package dev.idempotency.redis;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/** The store's log records (logger {@code dev.idempotency.redis}), or another logger's, while it is open. */
final class LogCapture extends Handler implements AutoCloseable {

    private final Logger logger;
    private final List<LogRecord> records = new CopyOnWriteArrayList<>();

    LogCapture() {
        this("dev.idempotency.redis");
    }

    /** @param name the logger whose records (and its children's) are kept */
    LogCapture(String name) {
        logger = Logger.getLogger(name);
        setLevel(Level.ALL);
        logger.addHandler(this);
    }

    @Override
    public void publish(LogRecord record) {
        records.add(record);
    }

    /** @return the messages logged at the level with the code */
    List<String> messages(Level level, String code) {
        return records.stream().filter(r -> r.getLevel().equals(level) && r.getMessage() != null
                && r.getMessage().contains(code)).map(LogRecord::getMessage).toList();
    }

    /** @return how many messages carry the code, at any level */
    long count(String code) {
        return records.stream().filter(r -> r.getMessage() != null && r.getMessage().contains(code)).count();
    }

    @Override
    public void flush() {
    }

    @Override
    public void close() {
        logger.removeHandler(this);
    }
}
