package io.github.delayqueue.faults;

import java.time.Duration;

/** {@code kill -9} a consumer JVM, one slot after another, a fresh one started each time. */
final class ConsumerCrash implements Fault {

	@Override
	public String name() {
		return "consumer crash";
	}

	@Override
	public String how(Sizes sizes) {
		return "`kill -9` a consumer JVM " + sizes.consumerKills() + " times, a fresh one started each time";
	}

	@Override
	public boolean appliesToRedisson() {
		return true;
	}

	@Override
	public void inject(Rig rig) {
		for (int i = 0; i < rig.sizes().consumerKills(); i++) {
			Rig.sleep(Duration.ofMillis(500));
			rig.kill(i % rig.workers());
		}
	}

}
