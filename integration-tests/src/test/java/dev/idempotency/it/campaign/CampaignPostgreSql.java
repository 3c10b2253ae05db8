package dev.idempotency.it.campaign;

import java.nio.file.Path;
import java.util.List;

import dev.idempotency.jpa.testing.OwnPostgreSql;

/**
 * A PostgreSQL of the campaign's own, which the nemesis kills ({@code kill -9}, recovered from its
 * WAL on restart) and freezes (every process of it, {@code SIGSTOP}).
 */
final class CampaignPostgreSql implements CampaignResource {

    static final String KILL = "kill -9 PostgreSQL";
    static final String FREEZE = "SIGSTOP PostgreSQL";

    private final OwnPostgreSql database;
    private final List<Nemesis.Fault> faults;

    CampaignPostgreSql() throws Exception {
        database = OwnPostgreSql.start(Path.of("target", "own-postgresql", "campaign", "data").toAbsolutePath());
        faults = List.of(Nemesis.held(KILL, 300, 2000, database::kill, database::restart),
                Nemesis.held(FREEZE, 1000, 5000, database::freeze, database::thaw));
    }

    /** @return its JDBC URL (loopback) */
    String jdbcUrl() {
        return database.jdbcUrl();
    }

    @Override
    public List<Nemesis.Fault> faults() {
        return faults;
    }

    @Override
    public void close() throws Exception {
        database.close();
    }
}
