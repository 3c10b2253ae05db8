package dev.idempotency.it.campaign;

import java.nio.file.Path;
import java.util.List;
import java.util.Set;

import org.jboss.shrinkwrap.api.spec.WebArchive;

import dev.idempotency.it.support.Deployments;
import dev.idempotency.jpa.testing.OwnPostgreSql;

/**
 * The JPA store in a campaign: the records and the payments in one PostgreSQL of the campaign's
 * own, which the nemesis kills ({@code kill -9}, recovered from its WAL on restart) and freezes
 * (every process of it, {@code SIGSTOP}). The store promises every rule, its records committing
 * with the payments, but one, which docs/stores/jpa.md states as a window: a request whose
 * transaction's commit meets the database's death gets the server's own {@code 500} (the commit
 * fails in {@code @Transactional}, outside the library's interceptor); nothing committed (or, if
 * the commit went through, the retry replays it), and the retry with the same key is safe.
 */
final class JpaCampaignStore implements CampaignStore {

    static final String KILL_POSTGRESQL = "kill -9 PostgreSQL";

    private final OwnPostgreSql database;

    JpaCampaignStore() throws Exception {
        database = OwnPostgreSql.start(Path.of("target", "own-postgresql", "campaign", "data").toAbsolutePath());
    }

    @Override
    public String name() {
        return "JPA on PostgreSQL";
    }

    @Override
    public String contextRoot() {
        return "campaign-jpa";
    }

    @Override
    public WebArchive app(String config) {
        return Deployments.sampleAppOnDatabase(contextRoot(), config, database.jdbcUrl());
    }

    @Override
    public List<Nemesis.Fault> faults() {
        return List.of(CampaignStore.fault(KILL_POSTGRESQL, 300, 2000, database::kill, database::restart),
                CampaignStore.fault("SIGSTOP PostgreSQL", 1000, 5000, database::freeze, database::thaw));
    }

    @Override
    public Set<HistoryChecker.Rule> admittedWindows() {
        return Set.of(HistoryChecker.Rule.SERVER_ERROR_IN_DATABASE_CRASH);
    }

    @Override
    public Set<String> databaseCrashes() {
        return Set.of(KILL_POSTGRESQL);
    }

    @Override
    public String paymentsDatabase() {
        return database.jdbcUrl();
    }

    @Override
    public void close() throws Exception {
        database.close();
    }
}
