package io.github.delayqueue.faults;

import java.time.Duration;

import io.lettuce.core.KillArgs;

/** Redis closes the clients' connections ({@code CLIENT KILL TYPE normal} or {@code pubsub}) every 100 ms. */
final class DroppedConnections implements Fault {

	private final boolean pubsub;

	DroppedConnections(boolean pubsub) {
		this.pubsub = pubsub;
	}

	@Override
	public String name() {
		return "dropped connections, " + (this.pubsub ? "pubsub" : "normal");
	}

	@Override
	public String how(Sizes sizes) {
		return "`CLIENT KILL TYPE " + (this.pubsub ? "pubsub" : "normal") + "` every 100 ms for "
				+ sizes.connectionKilling().toSeconds() + " s";
	}

	@Override
	public void inject(Rig rig) {
		Rig.sleep(Duration.ofSeconds(1));
		long start = System.currentTimeMillis();
		long end = start + rig.sizes().connectionKilling().toMillis();
		while (System.currentTimeMillis() < end) {
			KillArgs kill = this.pubsub ? KillArgs.Builder.typePubsub() : KillArgs.Builder.typeNormal();
			rig.admin().clientKill(kill.skipme());
			Rig.sleep(Duration.ofMillis(100));
		}
		rig.event(start, System.currentTimeMillis(), true);
	}

}
