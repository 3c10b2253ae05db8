package dev.idempotency.jpa;

import java.time.ZoneId;
import java.util.Optional;
import java.util.function.Function;

import javax.sql.DataSource;

import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.transaction.Transactional;

/**
 * JTA transactions around the application's {@link IdempotencyPersistence} entity manager when
 * it produces one, else around this jar's {@code idempotency} persistence unit (on the server's
 * default datasource). Used through {@link SeparateRecordTransactions}, which keeps the store's
 * own transactions off threads whose caller's transaction is open.
 */
@ApplicationScoped
public class JtaRecordTransactions implements RecordTransactions {

    @PersistenceContext(unitName = "idempotency")
    EntityManager ownUnit;

    @Inject
    @IdempotencyPersistence
    Instance<EntityManager> applicationUnit;

    @Inject
    DeclaredDataSources deployment;

    private EntityManager entityManager;
    private Optional<DataSource> dataSource;

    /** Runs on the first store call (a thread of the application's, which can look its datasource up). */
    @PostConstruct
    void choose() {
        entityManager = applicationUnit.isResolvable() ? applicationUnit.get() : ownUnit;
        ProviderTimeZone.check(entityManager.getEntityManagerFactory().getProperties(), ZoneId.systemDefault());
        dataSource = UnitDataSource.lookUp(deployment.storeUnit(), Thread.currentThread().getContextClassLoader());
    }

    @Override
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public <T> T inNewTransaction(Function<EntityManager, T> work) {
        return work.apply(entityManager);
    }

    @Override
    @Transactional(Transactional.TxType.REQUIRED)
    public <T> T inCallerTransaction(Function<EntityManager, T> work) {
        return work.apply(entityManager);
    }

    /** @return the jta-data-source of the store's persistence unit, looked up once ({@link UnitDataSource}) */
    @Override
    public Optional<DataSource> autoCommitDataSource() {
        return dataSource;
    }
}
