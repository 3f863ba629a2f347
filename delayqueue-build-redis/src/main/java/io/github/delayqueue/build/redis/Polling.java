package io.github.delayqueue.build.redis;

import java.time.Duration;
import java.util.function.BooleanSupplier;

import org.awaitility.Awaitility;

/**
 * Waits, up to a deadline, for servers to become ready (Awaitility): polls a condition every 50 ms, treating a
 * failure as "not yet".
 */
final class Polling {

	private Polling() {
	}

	static void until(String what, Duration timeout, BooleanSupplier condition) {
		Awaitility.await(what)
			.atMost(timeout)
			.pollInterval(Duration.ofMillis(50))
			.ignoreExceptions()
			.until(condition::getAsBoolean);
	}

}
