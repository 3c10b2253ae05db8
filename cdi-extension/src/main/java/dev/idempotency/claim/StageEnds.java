package dev.idempotency.claim;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.BiConsumer;
import java.util.logging.Level;
import java.util.logging.Logger;

import dev.idempotency.internal.Messages;

/**
 * What the caller of an idempotent method that returned a stage gets back: a stage that ends
 * only after the claim was settled (so that a retry never finds the key still held), with exactly
 * the value or the failure of the method's own stage. {@link CompletionStage#whenComplete} would
 * hand dependants a method's {@code failedFuture(e)} as a {@code CompletionException} wrapping
 * {@code e}, which changes what an {@code exceptionally} callback or a JAX-RS exception mapper sees.
 */
public final class StageEnds {

    private static final Logger LOG = Logger.getLogger(StageEnds.class.getName());

    private StageEnds() {
    }

    /**
     * @param <T> the stage's value type
     * @param stage the method's stage
     * @param settle what ends the claim, with the stage's value or failure
     * @return a stage completed as {@code stage} was, after {@code settle} ran (even if it threw)
     */
    public static <T> CompletableFuture<T> after(CompletionStage<T> stage, BiConsumer<? super T, ? super Throwable> settle) {
        CompletableFuture<T> settled = incompleteLike(stage);
        stage.whenComplete((value, failure) -> {
            try {
                settle.accept(value, failure);
            } catch (RuntimeException | Error e) {
                LOG.log(Level.SEVERE, Messages.stageNotSettled(), e);
            } finally {
                if (failure != null) {
                    settled.completeExceptionally(failure);
                } else {
                    settled.complete(value);
                }
            }
        });
        return settled;
    }

    /**
     * @return an incomplete future of the stage's own kind where one can be made and completed (a
     *     ManagedCompletableFuture keeps running the caller's dependants with the application's
     *     context: naming, CDI, security); else a plain one. A minimal stage
     *     ({@code CompletableFuture.completedStage}, {@code minimalCompletionStage}) makes only
     *     minimal stages, which cannot be completed and answer every such call with
     *     UnsupportedOperationException: the caller would wait for ever.
     */
    private static <T> CompletableFuture<T> incompleteLike(CompletionStage<T> stage) {
        if (stage instanceof CompletableFuture<T> future) {
            CompletableFuture<T> made = future.newIncompleteFuture();
            try {
                made.isDone();
                return made;
            } catch (UnsupportedOperationException minimal) {
                // a minimal stage: a plain future below
            }
        }
        return new CompletableFuture<>();
    }
}
