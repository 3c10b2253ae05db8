package dev.idempotency.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class ThrottledLogTest {

    private final Logger logger = Logger.getLogger("test.throttled." + System.nanoTime());
    private final List<LogRecord> records = new ArrayList<>();
    private final AtomicLong clock = new AtomicLong();
    private final Handler capture = new Handler() {
        @Override
        public void publish(LogRecord record) {
            records.add(record);
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };

    @BeforeEach
    void capture() {
        logger.setUseParentHandlers(false);
        logger.addHandler(capture);
    }

    @AfterEach
    void release() {
        logger.removeHandler(capture);
    }

    @Test
    void aMessageRecurringOnEveryRequestIsLoggedOncePerIntervalWithTheCountLeftOut() {
        ThrottledLog log = new ThrottledLog(logger, 10, clock::get);
        RuntimeException cause = new RuntimeException("down");

        for (int i = 0; i < 1000; i++) {
            log.log(Level.SEVERE, "IDEMP0401: store down", cause);
        }
        clock.addAndGet(10_000_000_000L);
        log.log(Level.SEVERE, "IDEMP0401: store down", cause);

        assertThat(records).hasSize(2);
        assertThat(records.get(0).getMessage()).isEqualTo("IDEMP0401: store down");
        assertThat(records.get(0).getThrown()).isSameAs(cause);
        assertThat(records.get(1).getMessage()).isEqualTo(
                "IDEMP0401: store down (999 more like this were not logged in the last 10 s)");
    }

    @Test
    void distinctMessagesHaveTheirOwnIntervals() {
        ThrottledLog log = new ThrottledLog(logger, 10, clock::get);

        log.log(Level.SEVERE, "IDEMP0401: endpoint A", null);
        log.log(Level.SEVERE, "IDEMP0401: endpoint B", null);
        log.log(Level.SEVERE, "IDEMP0401: endpoint A", null);

        assertThat(records).extracting(LogRecord::getMessage).containsExactly("IDEMP0401: endpoint A", "IDEMP0401: endpoint B");
    }
}
