package io.github.delayqueue.listener;

import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;

import org.jspecify.annotations.Nullable;

/** Waits for a handler's stage, for the blocking forms of the handlers whose work completes later. */
final class CompletionStages {

	private CompletionStages() {
	}

	/**
	 * Waits for a handler's work to complete.
	 * @param work the stage the handler returned
	 * @throws Exception what the work failed with
	 */
	static void await(@Nullable CompletionStage<?> work) throws Exception {
		if (work == null) {
			throw new IllegalStateException("Handler returned null instead of a CompletionStage");
		}
		try {
			work.toCompletableFuture().join();
		}
		catch (CompletionException ex) {
			if (ex.getCause() instanceof Exception cause) {
				throw cause;
			}
			throw ex;
		}
	}

}
