package io.github.delayqueue.faults;

import java.time.Duration;

import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;

/**
 * Redis stops answering for longer than the clients' command timeout: {@code CLIENT PAUSE} (clients wait, the server
 * runs) or {@code DEBUG SLEEP} (the server itself stands still).
 */
final class RedisStall implements Fault {

	private final boolean debugSleep;

	RedisStall(boolean debugSleep) {
		this.debugSleep = debugSleep;
	}

	@Override
	public String name() {
		return "Redis stall, " + (this.debugSleep ? "DEBUG SLEEP" : "CLIENT PAUSE");
	}

	@Override
	public String how(Sizes sizes) {
		return "`" + (this.debugSleep ? "DEBUG SLEEP" : "CLIENT PAUSE") + "` for " + sizes.redisStall().toMillis()
				+ " ms (command timeout " + Sizes.COMMAND_TIMEOUT.toMillis() + " ms), " + sizes.redisStalls()
				+ " times";
	}

	@Override
	public void inject(Rig rig) {
		long millis = rig.sizes().redisStall().toMillis();
		for (int i = 0; i < rig.sizes().redisStalls(); i++) {
			Rig.sleep(Duration.ofSeconds(2));
			long start = System.currentTimeMillis();
			if (this.debugSleep) {
				// Lettuce has no method for DEBUG SLEEP
				rig.admin().dispatch(CommandType.DEBUG, new StatusOutput<>(StringCodec.UTF8),
						new CommandArgs<>(StringCodec.UTF8).add("SLEEP").add(millis / 1000.0));
			}
			else {
				rig.admin().clientPause(millis);
				Rig.sleep(Duration.ofMillis(millis));
			}
			rig.event(start, System.currentTimeMillis(), true);
		}
	}

}
