package io.github.delayqueue.faults;

import java.time.Duration;

/**
 * Poison messages among the load: handlers that always throw, payloads the consumers cannot read, and handlers that
 * halt their JVM. Each must end among the dead letters after its attempts, and none of its neighbours with it.
 */
final class PoisonMessages implements Fault {

	@Override
	public String name() {
		return "poison messages";
	}

	@Override
	public String how(Sizes sizes) {
		return sizes.poisons() + " each of: a handler that throws, an unreadable payload, a handler that halts its JVM"
				+ " (" + Sizes.MAX_ATTEMPTS + " attempts)";
	}

	/** Its ordinary messages are the latest of any row: the JSON shows why. */
	@Override
	public boolean timeline() {
		return true;
	}

	@Override
	public void inject(Rig rig) {
		for (int i = 0; i < rig.sizes().poisons(); i++) {
			Rig.sleep(Duration.ofSeconds(1));
			rig.producer().sendPoison(Work.THROW, 1);
			rig.producer().sendPoison("unreadable", 1);
			rig.producer().sendPoison(Work.CRASH, 1);
		}
		// the rig keeps restarting halted JVMs until the queue has drained: the crash poisons' later attempts
		Rig.sleep(Duration.ofSeconds(2));
	}

}
