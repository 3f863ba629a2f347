package io.github.delayqueue.faults;

import java.time.Duration;

/** Every consumer shut down gracefully ({@code SIGTERM}) and started again, one after another. */
final class RollingRestart implements Fault {

	@Override
	public String name() {
		return "rolling restart";
	}

	@Override
	public String how(Sizes sizes) {
		return "`SIGTERM` (graceful shutdown) and restart every consumer in turn, " + sizes.restartRounds()
				+ " round(s)";
	}

	@Override
	public void inject(Rig rig) {
		for (int round = 0; round < rig.sizes().restartRounds(); round++) {
			for (int slot = 0; slot < rig.workers(); slot++) {
				Rig.sleep(Duration.ofSeconds(1));
				rig.restart(slot);
			}
		}
	}

}
