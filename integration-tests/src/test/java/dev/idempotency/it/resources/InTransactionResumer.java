package dev.idempotency.it.resources;

import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.transaction.TransactionSynchronizationRegistry;
import jakarta.transaction.Transactional;
import jakarta.ws.rs.container.AsyncResponse;
import jakarta.ws.rs.core.Response;

/**
 * Resumes a suspended request inside a transaction of its own, as an application that answers
 * from its {@code @Transactional} service does: the answer is written (and the library stores it)
 * while the transaction still runs, and the transaction may roll back after the answer left.
 */
@ApplicationScoped
public class InTransactionResumer {

    @Resource
    TransactionSynchronizationRegistry transactions;

    /**
     * @param response the suspended request
     * @param answer what it is answered
     * @param rollBack whether the transaction rolls back once the answer was written
     */
    @Transactional
    public void resume(AsyncResponse response, Response answer, boolean rollBack) {
        response.resume(answer);
        if (rollBack) {
            transactions.setRollbackOnly();
        }
    }
}
