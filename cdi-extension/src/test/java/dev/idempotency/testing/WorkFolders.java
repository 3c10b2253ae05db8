package dev.idempotency.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** The work folders of the servers the tests start (data, logs, configuration). */
public final class WorkFolders {

    private WorkFolders() {
    }

    /**
     * Deletes a folder and everything below it; nothing when it does not exist.
     *
     * @param root the folder
     * @throws IOException when a file cannot be deleted
     */
    public static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(path);
            }
        }
    }
}
