package dev.idempotency.state;

import java.util.function.Function;

import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;

/** Work in a resource-local transaction of its own, rolled back when it throws. */
final class ResourceLocal {

    private ResourceLocal() {
    }

    static <T> T inTransaction(EntityManagerFactory factory, Function<EntityManager, T> work) {
        EntityManager em = factory.createEntityManager();
        try {
            em.getTransaction().begin();
            T result = work.apply(em);
            em.getTransaction().commit();
            return result;
        } finally {
            if (em.getTransaction().isActive()) {
                em.getTransaction().rollback();
            }
            em.close();
        }
    }
}
