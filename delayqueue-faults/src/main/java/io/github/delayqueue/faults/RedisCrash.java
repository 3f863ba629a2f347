package io.github.delayqueue.faults;

import java.time.Duration;

/** The Redis server killed ({@code SIGKILL}) under load and started again from its append-only file. */
final class RedisCrash implements Fault {

	private final String fsync;

	RedisCrash(String fsync) {
		this.fsync = fsync;
	}

	@Override
	public String name() {
		return "Redis crash, appendfsync " + this.fsync;
	}

	@Override
	public String how(Sizes sizes) {
		return "`kill -9` redis-server " + sizes.redisCrashes() + " times, restarted after 1 s from its AOF ("
				+ this.fsync + ")";
	}

	@Override
	public boolean appliesToRedisson() {
		return true;
	}

	@Override
	public Rig.Setup setup(Sizes sizes, boolean redisson) {
		return Rig.Setup.of(redisson, this.fsync, sizes.workers());
	}

	@Override
	public void inject(Rig rig) {
		for (int i = 0; i < rig.sizes().redisCrashes(); i++) {
			Rig.sleep(Duration.ofSeconds(2));
			long killed = System.currentTimeMillis();
			rig.redis().kill();
			Rig.sleep(Duration.ofSeconds(1));
			rig.redis().start();
			rig.event(killed, System.currentTimeMillis(), true);
		}
	}

}
