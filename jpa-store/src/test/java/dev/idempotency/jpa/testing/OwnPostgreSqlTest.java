package dev.idempotency.jpa.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import dev.idempotency.testing.WorkFolders;

/**
 * {@link OwnPostgreSql}: an outage (stop), a crash (kill) and the restarts after them keep the
 * data and the port, and nothing of it outlives {@link OwnPostgreSql#close()}.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class OwnPostgreSqlTest {

    @Test
    void keepsItsDataAndPortAcrossAStopAndACrash() throws Exception {
        Path root = Path.of("target", "own-postgresql-test").toAbsolutePath();
        WorkFolders.deleteTree(root);
        Path data = root.resolve("data");
        Set<ProcessHandle> seen = new LinkedHashSet<>();

        long started = System.nanoTime();
        OwnPostgreSql db = OwnPostgreSql.start(data);
        try (db) {
            report("start (initdb + start + CREATE DATABASE)", started);
            int port = db.port();
            assertThat(db.running()).isTrue();
            assertThat(db.jdbcUrl()).isEqualTo("jdbc:postgresql://127.0.0.1:" + port + "/test");
            assertThat(port).isNotEqualTo(5432);
            seen.addAll(tree(db.pid()));
            System.out.println("postmaster " + db.pid() + ", its parent " + ProcessHandle.of(db.pid())
                    .flatMap(ProcessHandle::parent).map(ProcessHandle::pid).orElse(-1L) + ", this JVM "
                    + ProcessHandle.current().pid() + ", user " + ProcessHandle.of(db.pid())
                    .flatMap(handle -> handle.info().user()).orElse("?"));

            try (Connection connection = db.connect(); Statement statement = connection.createStatement()) {
                statement.execute("CREATE TABLE outage_probe (id int PRIMARY KEY, note text NOT NULL)");
                statement.execute("INSERT INTO outage_probe VALUES (1, 'before the outage')");
            }

            // an outage, with a client connected: a fast shutdown does not wait for it
            Connection held = db.connect();
            long stopping = System.nanoTime();
            db.stop();
            report("stop (fast shutdown, one client connected)", stopping);
            assertThat(db.running()).isFalse();
            assertThat(db.pid()).isEqualTo(-1);
            assertAllGone(seen);
            long refused = System.nanoTime();
            assertThatThrownBy(db::connect).isInstanceOf(SQLException.class)
                    .hasMessageContaining("127.0.0.1:" + port);
            assertThat(Duration.ofNanos(System.nanoTime() - refused)).isLessThan(Duration.ofSeconds(5));
            report("connection attempt while stopped (refused)", refused);
            assertThat(held.isValid(2)).isFalse();
            held.close();

            long restarting = System.nanoTime();
            db.restart();
            report("restart after stop", restarting);
            assertThat(db.port()).isEqualTo(port);
            assertThat(notes(db)).containsExactly("before the outage");
            seen.addAll(tree(db.pid()));

            // a crash right after a commit: the commit survives (WAL, crash recovery)
            try (Connection connection = db.connect(); Statement statement = connection.createStatement()) {
                statement.execute("INSERT INTO outage_probe VALUES (2, 'just before the crash')");
            }
            Connection crashed = db.connect();
            long killing = System.nanoTime();
            db.kill();
            report("kill (SIGKILL)", killing);
            assertThat(db.running()).isFalse();
            assertAllGone(seen);
            assertThatThrownBy(db::connect).isInstanceOf(SQLException.class);
            assertThat(crashed.isValid(2)).isFalse();
            crashed.close();

            long recovering = System.nanoTime();
            db.restart();
            report("restart after kill (crash recovery)", recovering);
            assertThat(db.port()).isEqualTo(port);
            assertThat(Files.readString(db.log())).contains("not properly shut down; automatic recovery in progress");
            assertThat(notes(db)).containsExactly("before the outage", "just before the crash");
            seen.addAll(tree(db.pid()));
            assertThat(seen).hasSizeGreaterThan(3);
        }
        long closed = System.nanoTime();
        assertThat(db.running()).isFalse();
        assertAllGone(seen);
        assertNoPostmasterOf(data);

        // a directory initialised before is started as it is (no initdb), on a port of its own
        long reopening = System.nanoTime();
        try (OwnPostgreSql again = OwnPostgreSql.start(data)) {
            report("start on an existing data directory", reopening);
            assertThat(notes(again)).containsExactly("before the outage", "just before the crash");
            seen.addAll(tree(again.pid()));
        }
        assertAllGone(seen);
        assertNoPostmasterOf(data);
        report("everything after the first close", closed);
    }

    private static List<String> notes(OwnPostgreSql db) throws SQLException {
        List<String> notes = new ArrayList<>();
        try (Connection connection = db.connect(); Statement statement = connection.createStatement();
                ResultSet result = statement.executeQuery("SELECT note FROM outage_probe ORDER BY id")) {
            while (result.next()) {
                notes.add(result.getString(1));
            }
        }
        return notes;
    }

    private static List<ProcessHandle> tree(long pid) {
        ProcessHandle postmaster = ProcessHandle.of(pid).orElseThrow();
        List<ProcessHandle> tree = new ArrayList<>(List.of(postmaster));
        postmaster.descendants().forEach(tree::add);
        return tree;
    }

    private static void assertAllGone(Set<ProcessHandle> processes) {
        assertThat(processes.stream().filter(OwnPostgreSql::alive).map(ProcessHandle::pid).toList())
                .as("processes of the test's PostgreSQL still alive").isEmpty();
    }

    /** Independent of the handles: no process on this machine names the data directory (ps, through /proc). */
    private static void assertNoPostmasterOf(Path data) {
        assertThat(ProcessHandle.allProcesses()
                .filter(OwnPostgreSql::alive)
                .filter(process -> process.info().commandLine().orElse("").contains(data.toString()))
                .map(process -> process.pid() + " " + process.info().commandLine().orElse(""))
                .toList()).as("processes naming " + data).isEmpty();
    }

    private static void report(String what, long since) {
        System.out.printf("OwnPostgreSqlTest: %-45s %6d ms%n", what, (System.nanoTime() - since) / 1_000_000);
    }
}
