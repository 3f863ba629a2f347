package io.github.delayqueue.faults;

import org.jspecify.annotations.Nullable;

/**
 * One kind of fault the suite injects under the steady load.
 */
interface Fault {

	/**
	 * The fault's name in the table.
	 * @return such as {@code consumer crash}
	 */
	String name();

	/**
	 * How it is injected, in the table's words.
	 * @param sizes the run's sizes
	 * @return such as {@code kill -9 a consumer JVM, 100 times}
	 */
	String how(Sizes sizes);

	/**
	 * Whether Redisson's {@code RDelayedQueue} runs under this fault too.
	 * @return {@code true} where the fault applies to it
	 */
	default boolean appliesToRedisson() {
		return false;
	}

	/**
	 * Whether the row's JSON carries a {@link Timeline} of the run (where its lateness came from).
	 * @return {@code true} to trace it from the fault's start
	 */
	default boolean timeline() {
		return false;
	}

	/**
	 * The run's set-up.
	 * @param sizes the run's sizes
	 * @param redisson whether Redisson is under test
	 * @return the set-up
	 */
	default Rig.Setup setup(Sizes sizes, boolean redisson) {
		return Rig.Setup.of(redisson, "always", sizes.workers());
	}

	/**
	 * Why this machine cannot run the fault.
	 * @return the reason (naming what to install), or {@code null} if it can
	 */
	default @Nullable String unavailable() {
		return null;
	}

	/**
	 * Injects the fault while the load runs; returns when it is over.
	 * @param rig the run
	 */
	void inject(Rig rig);

}
