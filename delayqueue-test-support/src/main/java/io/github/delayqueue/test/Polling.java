package io.github.delayqueue.test;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/** Waits for a set-up of servers to become ready: polls a condition, treating a failure as "not yet". */
final class Polling {

	private Polling() {
	}

	static void until(String what, Duration timeout, BooleanSupplier condition) {
		long deadline = System.nanoTime() + timeout.toNanos();
		while (System.nanoTime() - deadline < 0) {
			try {
				if (condition.getAsBoolean()) {
					return;
				}
			}
			catch (RuntimeException ex) {
				// not there yet
			}
			try {
				Thread.sleep(50);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException("Interrupted waiting for " + what, ex);
			}
		}
		throw new IllegalStateException("Not ready within " + timeout + ": " + what);
	}

}
