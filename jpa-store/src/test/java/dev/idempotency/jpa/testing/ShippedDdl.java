package dev.idempotency.jpa.testing;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.sql.Statement;

/** The DDL the JPA store ships under {@code META-INF/idempotency/ddl/}, applied as a user would. */
public final class ShippedDdl {

    private ShippedDdl() {
    }

    /**
     * Drops {@code idempotency_record} and creates it again from the jar's DDL.
     *
     * @param statement a statement on the database
     * @param file the DDL file, e.g. {@code postgresql.sql}
     * @throws SQLException when the database refuses a statement
     * @throws IOException when the jar has no such file
     */
    public static void recreate(Statement statement, String file) throws SQLException, IOException {
        statement.execute("DROP TABLE IF EXISTS idempotency_record");
        for (String sql : read(file).split(";")) {
            String trimmed = sql.replaceAll("(?m)--.*$", "").trim();
            if (!trimmed.isEmpty()) {
                statement.execute(trimmed);
            }
        }
    }

    private static String read(String file) throws IOException {
        try (InputStream in = ShippedDdl.class.getResourceAsStream("/META-INF/idempotency/ddl/" + file)) {
            if (in == null) {
                throw new IOException("no DDL " + file + " in the jar");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
