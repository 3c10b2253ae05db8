package dev.idempotency.it.resources;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;

import javax.sql.DataSource;

import jakarta.annotation.PostConstruct;
import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import dev.idempotency.spi.support.OwnerTokens;

/**
 * The HTTP benchmark's physical floor on a database: an unannotated method that makes, itself,
 * with plain JDBC on the application's datasource, what an owner-safe first execution cannot
 * avoid, in the JPA store's transaction shapes: {@code INSERT ... ON CONFLICT DO NOTHING}
 * committed on its own, then an owner-checked {@code UPDATE} with the answer committed in another,
 * on a table with the store's columns and indexes.
 */
@Path("bench/raw-jdbc")
@ApplicationScoped
public class RawJdbcResource {

    @Resource(lookup = "java:app/jdbc/payments")
    DataSource dataSource;

    @PostConstruct
    void createTable() {
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE IF NOT EXISTS raw_http_record (record_key VARCHAR(64) PRIMARY KEY,"
                    + " state VARCHAR(16) NOT NULL, fingerprint VARCHAR(64) NOT NULL, owner_token VARCHAR(36) NOT NULL,"
                    + " lease_end TIMESTAMP NOT NULL, status INT, body BYTEA, expires_at TIMESTAMP)");
            statement.execute("CREATE INDEX IF NOT EXISTS raw_http_record_expiry ON raw_http_record (state, expires_at)");
            statement.execute("CREATE INDEX IF NOT EXISTS raw_http_record_lease ON raw_http_record (state, lease_end)");
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** @return the answer the idempotent method gives, after the two statements and their commits */
    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    @Produces(MediaType.APPLICATION_JSON)
    public Response firstExecution(@HeaderParam("Idempotency-Key") String key, String body) throws SQLException {
        String owner = OwnerTokens.next();
        try (Connection connection = dataSource.getConnection()) {
            try (PreparedStatement claim = connection.prepareStatement("INSERT INTO raw_http_record (record_key, state,"
                    + " fingerprint, owner_token, lease_end) VALUES (?, 'IN_PROGRESS', ?, ?, now() + interval '600 seconds')"
                    + " ON CONFLICT DO NOTHING")) {
                claim.setString(1, key);
                claim.setString(2, Integer.toHexString(body.hashCode()));
                claim.setString(3, owner);
                if (claim.executeUpdate() == 0) {
                    return Response.status(409).build();
                }
            }
        }
        try (Connection connection = dataSource.getConnection();
                PreparedStatement complete = connection.prepareStatement("UPDATE raw_http_record SET state = 'COMPLETED',"
                        + " status = 200, body = ?, expires_at = now() + interval '30 minutes' WHERE record_key = ?"
                        + " AND owner_token = ? AND lease_end > now()")) {
            complete.setBytes(1, BenchResource.ANSWER.getBytes(StandardCharsets.UTF_8));
            complete.setString(2, key);
            complete.setString(3, owner);
            complete.executeUpdate();
        }
        return Response.ok(BenchResource.ANSWER).build();
    }
}
