package io.github.delayqueue.faults;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * Where a row's lateness comes from, for diagnosis (in the row's JSON, not in the table): per bucket of wall time
 * since the fault started, the ordinary deliveries started and how late they were, the backlog, the worker JVMs that
 * died and came up, and what Redis held (suspects, leases); and the latest ordinary messages with how they were
 * delivered. Every time is in milliseconds since the fault started.
 *
 * @param faultStartedAt when the fault started, epoch milliseconds
 * @param bucketMillis the width of a bucket
 * @param jvms every worker JVM of the run
 * @param buckets from the fault's start to the last first delivery
 * @param latest the latest ordinary messages (by the lateness of their first delivery)
 */
record Timeline(long faultStartedAt, long bucketMillis, List<Jvm> jvms, List<Bucket> buckets, List<Late> latest) {

	static final long BUCKET_MILLIS = 500;

	static final int LATEST = 20;

	/**
	 * Builds a run's timeline.
	 * @param faultStartedAt when the fault started, epoch milliseconds
	 * @param sent the ordinary messages acknowledged: key to due time
	 * @param deliveries what the handlers recorded
	 * @param jvms the worker JVMs, their times in epoch milliseconds
	 * @param samples what Redis held, sampled while the fault ran (epoch milliseconds); empty if not sampled
	 * @return the timeline, its times relative to the fault's start
	 */
	static Timeline of(long faultStartedAt, Map<String, Long> sent, List<Ledger.Delivery> deliveries, List<Jvm> jvms,
			List<Sample> samples) {
		Map<String, Ledger.Delivery> firsts = new HashMap<>();
		List<Ledger.Delivery> ordinary = new ArrayList<>();
		for (Ledger.Delivery delivery : deliveries) {
			if (sent.containsKey(delivery.key())) {
				ordinary.add(delivery);
				firsts.merge(delivery.key(), delivery,
						(a, b) -> (a.startedAt() <= b.startedAt()) ? a : b);
			}
		}
		long end = faultStartedAt;
		for (Ledger.Delivery first : firsts.values()) {
			end = Math.max(end, first.startedAt());
		}
		for (Jvm jvm : jvms) {
			end = Math.max(end, Math.max(jvm.exitedMs() != null ? jvm.exitedMs() : 0,
					jvm.readyMs() != null ? jvm.readyMs() : 0));
		}
		int count = (int) ((end - faultStartedAt) / BUCKET_MILLIS) + 1;
		List<Bucket> buckets = new ArrayList<>(count);
		for (int i = 0; i < count; i++) {
			long from = faultStartedAt + i * BUCKET_MILLIS;
			long to = from + BUCKET_MILLIS;
			int started = 0;
			int firstCount = 0;
			int redelivered = 0;
			int retried = 0;
			long maxLateness = Long.MIN_VALUE;
			for (Ledger.Delivery delivery : ordinary) {
				if (delivery.startedAt() >= from && delivery.startedAt() < to) {
					started++;
					if (firsts.get(delivery.key()) == delivery) {
						firstCount++;
					}
					if (delivery.redelivered()) {
						redelivered++;
					}
					if (delivery.attempt() > 1) {
						retried++;
					}
					maxLateness = Math.max(maxLateness, delivery.startedAt() - sent.get(delivery.key()));
				}
			}
			int backlog = 0;
			for (Map.Entry<String, Long> message : sent.entrySet()) {
				Ledger.Delivery first = firsts.get(message.getKey());
				if (message.getValue() < to && (first == null || first.startedAt() >= to)) {
					backlog++;
				}
			}
			List<String> died = new ArrayList<>();
			List<String> ready = new ArrayList<>();
			int up = 0;
			for (Jvm jvm : jvms) {
				if (jvm.exitedMs() != null && jvm.exitedMs() >= from && jvm.exitedMs() < to) {
					died.add(jvm.incarnation());
				}
				if (jvm.readyMs() != null && jvm.readyMs() >= from && jvm.readyMs() < to) {
					ready.add(jvm.incarnation());
				}
				if (jvm.readyMs() != null && jvm.readyMs() < to && (jvm.exitedMs() == null || jvm.exitedMs() >= to)) {
					up++;
				}
			}
			int sampled = 0;
			int suspectsMax = 0;
			int leasedMin = Integer.MAX_VALUE;
			int leasedMax = 0;
			int chargedSuspectLeased = 0;
			for (Sample sample : samples) {
				if (sample.at() >= from && sample.at() < to) {
					sampled++;
					suspectsMax = Math.max(suspectsMax, sample.suspects());
					leasedMin = Math.min(leasedMin, sample.leased());
					leasedMax = Math.max(leasedMax, sample.leased());
					if (sample.chargedSuspectLeased()) {
						chargedSuspectLeased++;
					}
				}
			}
			buckets.add(new Bucket(from - faultStartedAt, started, firstCount, redelivered, retried,
					(started > 0) ? maxLateness : null, backlog, died, ready, up, sampled,
					(sampled > 0) ? suspectsMax : null, (sampled > 0) ? leasedMin : null,
					(sampled > 0) ? leasedMax : null, (sampled > 0) ? chargedSuspectLeased : null));
		}
		List<Late> latest = firsts.values()
			.stream()
			.sorted(Comparator.comparingLong((Ledger.Delivery d) -> d.startedAt() - sent.get(d.key())).reversed())
			.limit(LATEST)
			.map((first) -> late(faultStartedAt, sent.get(first.key()), first, jvms))
			.toList();
		List<Jvm> relative = jvms.stream()
			.map((jvm) -> new Jvm(jvm.incarnation(), jvm.launchedMs() - faultStartedAt, minus(jvm.readyMs(), faultStartedAt),
					minus(jvm.exitedMs(), faultStartedAt), jvm.crashed()))
			.toList();
		return new Timeline(faultStartedAt, BUCKET_MILLIS, relative, buckets, latest);
	}

	private static Late late(long faultStartedAt, long due, Ledger.Delivery first, List<Jvm> jvms) {
		List<String> deaths = new ArrayList<>();
		for (Jvm jvm : jvms) {
			if (jvm.exitedMs() != null && jvm.exitedMs() >= due && jvm.exitedMs() <= first.startedAt()) {
				deaths.add(jvm.incarnation() + " at " + (jvm.exitedMs() - faultStartedAt));
			}
		}
		return new Late(first.key(), due - faultStartedAt, first.startedAt() - faultStartedAt,
				first.startedAt() - due, first.attempt(), first.redelivered(), first.incarnation(), first.redelivered(),
				deaths);
	}

	/** Short, for the suite's log line (the JSON has it all). */
	@Override
	public String toString() {
		return "Timeline[" + this.buckets.size() + " buckets of " + this.bucketMillis + " ms, " + this.jvms.size()
				+ " JVMs]";
	}

	private static @Nullable Long minus(@Nullable Long time, long origin) {
		return (time != null) ? time - origin : null;
	}

	/**
	 * One worker JVM.
	 *
	 * @param incarnation its name ({@code w<slot>-<n>})
	 * @param launchedMs when the suite started it
	 * @param readyMs when it said it consumes, or {@code null} if it never did
	 * @param exitedMs when its process ended, or {@code null} if it still ran at the end
	 * @param crashed whether it died without being asked to stop gracefully (killed, or halted by a poison)
	 */
	record Jvm(String incarnation, long launchedMs, @Nullable Long readyMs, @Nullable Long exitedMs, boolean crashed) {
	}

	/**
	 * What Redis held at one moment.
	 *
	 * @param at when, epoch milliseconds
	 * @param suspects messages that are suspects (their lease ran out without an outcome), waiting or leased
	 * @param leased messages leased to a consumer
	 * @param chargedSuspectLeased whether a suspect already charged for a run (one that may kill its consumer) is
	 * leased: no other such suspect may be leased by any consumer meanwhile
	 */
	record Sample(long at, int suspects, int leased, boolean chargedSuspectLeased) {
	}

	/**
	 * One bucket of wall time.
	 *
	 * @param fromMs its start
	 * @param started ordinary deliveries started in it (first and later ones)
	 * @param firsts of them, first deliveries
	 * @param redelivered of them, redeliveries after a lease that ran out (the queue's redelivered flag)
	 * @param retried of them, at attempt 2 or later (a suspect's charged run, or a retry)
	 * @param maxLatenessMs the most late of them (start minus due time), {@code null} if none started
	 * @param backlog at its end, ordinary messages due and not yet started
	 * @param died worker JVMs whose process ended in it
	 * @param ready worker JVMs that came up (consume) in it
	 * @param workersUp worker JVMs consuming at its end
	 * @param samples how often Redis was sampled in it (every 100 ms)
	 * @param suspectsMax the most suspects Redis held, {@code null} if not sampled
	 * @param leasedMin the fewest messages leased
	 * @param leasedMax the most messages leased
	 * @param chargedSuspectLeased in how many samples a charged suspect was leased
	 */
	record Bucket(long fromMs, int started, int firsts, int redelivered, int retried, @Nullable Long maxLatenessMs,
			int backlog, List<String> died, List<String> ready, int workersUp, int samples, @Nullable Integer suspectsMax,
			@Nullable Integer leasedMin, @Nullable Integer leasedMax, @Nullable Integer chargedSuspectLeased) {
	}

	/**
	 * One of the latest ordinary messages.
	 *
	 * @param key its key
	 * @param dueMs when it was due
	 * @param startedMs when its first delivery started
	 * @param latenessMs the difference
	 * @param attempt the attempt of that delivery
	 * @param redelivered the queue's redelivered flag of that delivery
	 * @param incarnation the worker JVM that handled it
	 * @param leasedByCrashedJvm whether a JVM that crashed had leased it before (the redelivered flag: in a run whose
	 * only faults are crashes, a lease ends without an outcome only when its JVM died)
	 * @param deathsWhileWaiting the worker JVMs that died between its due time and its first delivery, with when
	 */
	record Late(String key, long dueMs, long startedMs, long latenessMs, int attempt, boolean redelivered,
			String incarnation, boolean leasedByCrashedJvm, List<String> deathsWhileWaiting) {
	}

}
