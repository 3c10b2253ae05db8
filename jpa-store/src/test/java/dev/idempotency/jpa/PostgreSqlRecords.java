package dev.idempotency.jpa;

import jakarta.persistence.EntityManagerFactory;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import dev.idempotency.jpa.testing.ResourceLocalTransactions;

/** A fresh {@code idempotency_record} table on the real PostgreSQL, and the store's logic on it. */
abstract class PostgreSqlRecords {

    static EntityManagerFactory factory;
    static JpaRecords records;

    @BeforeAll
    static void database() throws Exception {
        factory = Databases.fresh("jdbc:postgresql://127.0.0.1:5432/test", "postgres", "postgresql.sql");
        records = new JpaRecords(new ResourceLocalTransactions(factory));
    }

    @AfterAll
    static void close() {
        factory.close();
    }
}
