package io.github.delayqueue.faults;

import java.time.Duration;

/**
 * A consumer JVM stopped ({@code SIGSTOP}, as in a long GC pause) past its lease, then continued; while it stands
 * still, the ids of the messages sent just before are scheduled again (the handlers it froze may hold them), so that
 * its late acknowledgements meet newer messages under the same ids.
 */
final class ConsumerStall implements Fault {

	private static final int BURST = 100;

	@Override
	public String name() {
		return "consumer stall past the lease";
	}

	@Override
	public String how(Sizes sizes) {
		return "`kill -STOP` a consumer JVM for lease + 2 s, then `kill -CONT`, " + sizes.stalls()
				+ " times, 30 ms after a burst of " + BURST + " messages fell due; the ids sent in the lease before"
				+ " each stop are scheduled again meanwhile";
	}

	@Override
	public void inject(Rig rig) {
		long lease = rig.sizes().leaseMillis();
		for (int i = 0; i < rig.sizes().stalls(); i++) {
			Rig.sleep(Duration.ofSeconds(2));
			// a burst falls due just before the stop, so that the worker holds messages, running and claimed
			long burstDue = System.currentTimeMillis() + 200;
			rig.producer().sendBurst(BURST, burstDue);
			Rig.sleep(Duration.ofMillis(Math.max(0, burstDue + 30 - System.currentTimeMillis())));
			WorkerProcess worker = rig.worker(i % rig.workers());
			long stopped = System.currentTimeMillis();
			worker.pause();
			// its leases run out and the other workers redeliver what it held
			Rig.sleep(Duration.ofMillis(lease + 1_000));
			int resent = rig.producer().resendSentBetween(stopped - lease, stopped);
			rig.note("stall " + (i + 1) + ": " + resent + " ids scheduled again while the worker stood still");
			Rig.sleep(Duration.ofSeconds(1));
			worker.markCrashed();
			worker.resume();
			rig.event(stopped, System.currentTimeMillis(), false);
		}
	}

}
