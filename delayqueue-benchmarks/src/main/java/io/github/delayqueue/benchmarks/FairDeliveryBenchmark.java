package io.github.delayqueue.benchmarks;

import java.lang.management.ManagementFactory;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;

import io.github.delayqueue.ScheduleRequest;
import io.github.delayqueue.core.RedisDelayedQueue;
import org.jspecify.annotations.Nullable;

/**
 * Fair delivery beside the same topic without groups, in the same run (delayqueue only: Redisson has no groups):
 * <ul>
 * <li>fairness: a backlog of one group due at once, and one message of another group due 10 ms later: how late
 * that one starts (without groups it waits behind the backlog); the same with a message of a higher priority
 * instead, in a backlog without a group and in the same group's backlog;</li>
 * <li>drain: the same number of due messages spread over 1,000 groups, and without groups;</li>
 * <li>memory: Redis bytes per waiting message with a group (an 11-character key), and without.</li>
 * </ul>
 * Grouped and ungrouped runs alternate, the ungrouped first.
 */
final class FairDeliveryBenchmark {

	private static final String SECTION = "7. Fair delivery: groups beside the same topic without groups, same run";

	private static final int THREADS = 8;

	private static final int GROUPS = 1_000;

	private static final int DRAIN_PAIRS = 3;

	private static final String PAYLOAD = "order-timeout-payload-0000042";

	private final DelayQueueSystem system;

	private final AdminConnection admin;

	private final Report report;

	private final int backlog;

	FairDeliveryBenchmark(DelayQueueSystem system, AdminConnection admin, Report report, int backlog) {
		this.system = system;
		this.admin = admin;
		this.report = report;
		this.backlog = backlog;
	}

	void run() {
		double plainLate = lonelyLateness(Lone.PLAIN);
		double groupedLate = lonelyLateness(Lone.GROUPED);
		double priorityLate = lonelyLateness(Lone.PRIORITY);
		double groupPriorityLate = lonelyLateness(Lone.GROUP_PRIORITY);
		this.report.row(SECTION, String.format(Locale.ROOT,
				"lateness of a lone message of group B due 10 ms after %,d of group A", this.backlog), "ms",
				Report.Better.LOWER, groupedLate, null, String.format(Locale.ROOT,
						"target ≤ 50 ms; without groups the same message is %.1f ms late (behind the backlog)",
						plainLate));
		this.report.row(SECTION, String.format(Locale.ROOT,
				"lateness of a high-priority message due 10 ms after %,d of normal priority", this.backlog), "ms",
				Report.Better.LOWER, priorityLate, null, String.format(Locale.ROOT,
						"priority 9 in a backlog of priority 4, weighted mode; without a priority the same message is "
								+ "%.1f ms late (behind the backlog)", plainLate));
		this.report.row(SECTION, String.format(Locale.ROOT,
				"lateness of a high-priority message of group A due 10 ms after %,d of group A", this.backlog), "ms",
				Report.Better.LOWER, groupPriorityLate, null, String.format(Locale.ROOT,
						"priority 9 in its own group's backlog of priority 4, weighted mode; without a priority the "
								+ "same message is %.1f ms late (behind the backlog)", plainLate));
		// pairs of drains, ungrouped then grouped: the pair of the median ratio is reported (a 2-core machine's
		// throughput swings by a third from one drain to the next; the ratio within a pair is steadier)
		List<Drain[]> pairs = new ArrayList<>();
		for (int i = 0; i < DRAIN_PAIRS; i++) {
			pairs.add(new Drain[] { drain("drain-plain", 0), drain("drain-grouped", GROUPS) });
		}
		List<Drain[]> byRatio = new ArrayList<>(pairs);
		byRatio.sort(Comparator.comparingDouble((pair) -> pair[1].rate() / pair[0].rate()));
		Drain plain = byRatio.get(byRatio.size() / 2)[0];
		Drain grouped = byRatio.get(byRatio.size() / 2)[1];
		double plainDrain = plain.rate();
		double groupedDrain = grouped.rate();
		String ratios = pairs.stream()
			.map((pair) -> String.format(Locale.ROOT, "%.2f×", pair[1].rate() / pair[0].rate()))
			.collect(Collectors.joining(", "));
		this.report.row(SECTION, String.format(Locale.ROOT, "drain of %,d due messages over %,d groups, %d handlers",
				this.backlog, GROUPS, THREADS), "msgs/s", Report.Better.HIGHER, groupedDrain, null,
				String.format(Locale.ROOT, "without groups %.0f msgs/s: %.2f× (target ≥ 0.8×), the median of %d "
						+ "alternating pairs (%s); per message in that pair, Redis CPU %.1f µs and %.2f commands, "
						+ "without groups %.1f µs and %.2f", plainDrain, groupedDrain / plainDrain, DRAIN_PAIRS, ratios,
						grouped.redisCpuMicros(), grouped.commands(), plain.redisCpuMicros(), plain.commands()));
		double plainBytes = bytesPerWaiting(false);
		double groupedBytes = bytesPerWaiting(true);
		this.report.row(SECTION, "Redis memory per waiting message with an 11-character group key", "bytes",
				Report.Better.LOWER, groupedBytes, null, String.format(Locale.ROOT,
						"without a group %.1f B: %+.1f B (target ≤ +16 B); %,d messages over %,d groups", plainBytes,
						groupedBytes - plainBytes, this.backlog, GROUPS));
		this.report.detail("fair-delivery", Map.of("latenessGroupedMs", groupedLate, "latenessPlainMs", plainLate,
				"latenessPriorityMs", priorityLate, "latenessGroupPriorityMs", groupPriorityLate, "drainGrouped", groupedDrain, "drainPlain", plainDrain,
				"bytesGrouped", groupedBytes, "bytesPlain", plainBytes));
	}

	/**
	 * The lone message behind the backlog: as the backlog, of another group, of a higher priority, or of a higher
	 * priority in the backlog's own group.
	 */
	private enum Lone {

		PLAIN, GROUPED, PRIORITY, GROUP_PRIORITY

	}

	/**
	 * Schedules the backlog (of group A, or without a group) and the lone message (of group B, or of priority 9, or
	 * of priority 9 in group A, or as the backlog); returns how late it started.
	 */
	private double lonelyLateness(Lone lane) {
		this.admin.flush();
		boolean grouped = lane == Lone.GROUPED || lane == Lone.GROUP_PRIORITY;
		String topic = "fair-" + lane.name().toLowerCase(Locale.ROOT);
		// the backlog falls due once it is stored and the consumer runs: twice the time storing it takes at the rate
		// just measured, and three seconds more
		Instant due = Instant.now().plusMillis(3_000 + 2 * scheduleMillis()).truncatedTo(ChronoUnit.MILLIS);
		List<ScheduleRequest> requests = new ArrayList<>(this.backlog);
		for (int i = 0; i < this.backlog; i++) {
			requests.add(request(topic, "a-" + i, PAYLOAD, grouped ? "tenant-000A" : null).dueAt(due).build());
		}
		schedule(requests);
		String loneGroup = (lane == Lone.GROUPED) ? "tenant-000B" : (lane == Lone.GROUP_PRIORITY) ? "tenant-000A" : null;
		ScheduleRequest.Builder lone = request(topic, "lone", "B", loneGroup).dueAt(due.plusMillis(10));
		boolean urgent = lane == Lone.PRIORITY || lane == Lone.GROUP_PRIORITY;
		this.system.queue().schedule((urgent ? lone.priority(9) : lone).build());
		AtomicLong lateMicros = new AtomicLong(-1);
		CountDownLatch delivered = new CountDownLatch(1);
		try (QueueUnderTest.Consumer consumer = this.system.consume(topic, THREADS, (payload, storedDue) -> {
			if (payload.contains("B")) {
				Instant now = Instant.now();
				lateMicros.set(now.getEpochSecond() * 1_000_000 + now.getNano() / 1_000 - storedDue);
				delivered.countDown();
			}
		})) {
			long ahead = due.toEpochMilli() - System.currentTimeMillis();
			Benchmarks.log(String.format(Locale.ROOT, "fair delivery: %s backlog of %,d stored, consumer started, "
					+ "%d ms before it is due", lane.name().toLowerCase(Locale.ROOT), this.backlog, ahead));
			if (ahead < 0) {
				this.report.note(String.format(Locale.ROOT, "fair delivery: the %s backlog was due %d ms before its "
						+ "consumer ran (a busy machine): its lateness row counts that too", lane.name().toLowerCase(Locale.ROOT),
						-ahead));
			}
			if (!delivered.await(5, TimeUnit.MINUTES)) {
				throw new IllegalStateException("The lone message was not delivered within 5 minutes");
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
		catch (Exception ex) {
			throw new IllegalStateException(ex);
		}
		this.admin.flush();
		return lateMicros.get() / 1000.0;
	}

	/**
	 * A drain's rate, and what it cost Redis per message: CPU (INFO cpu) and commands, those scripts ran included
	 * (INFO stats' total_commands_processed).
	 */
	private record Drain(double rate, double redisCpuMicros, double commands) {

	}

	/** Schedules the backlog due now (over 'groups' groups, or none), then drains it. */
	private Drain drain(String topic, int groups) {
		this.admin.flush();
		Instant due = Instant.now().minusSeconds(1);
		List<ScheduleRequest> requests = new ArrayList<>(this.backlog);
		for (int i = 0; i < this.backlog; i++) {
			String group = (groups > 0) ? String.format(Locale.ROOT, "tenant-%04d", i % groups) : null;
			requests.add(request(topic, "m-" + i, PAYLOAD, group).dueAt(due).build());
		}
		schedule(requests);
		CountDownLatch done = new CountDownLatch(this.backlog);
		double cpuBefore = this.admin.cpuSeconds();
		long commandsBefore = this.admin.commandsProcessed();
		Properties statsBefore = this.admin.info("commandstats");
		long cpuNanosBefore = processCpuNanos();
		long started = System.nanoTime();
		try (QueueUnderTest.Consumer consumer = this.system.consume(topic, THREADS,
				(payload, storedDue) -> done.countDown())) {
			if (!done.await(10, TimeUnit.MINUTES)) {
				throw new IllegalStateException("The drain did not finish within 10 minutes");
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
		catch (Exception ex) {
			throw new IllegalStateException(ex);
		}
		double rate = this.backlog / ((System.nanoTime() - started) / 1e9);
		double cpu = (this.admin.cpuSeconds() - cpuBefore) * 1e6 / this.backlog;
		double commands = (this.admin.commandsProcessed() - commandsBefore) / (double) this.backlog;
		double clientCpu = (processCpuNanos() - cpuNanosBefore) / 1e3 / this.backlog;
		Properties statsAfter = this.admin.info("commandstats");
		Benchmarks.log(String.format(Locale.ROOT,
				"fair delivery: %s drained at %.0f msgs/s, Redis CPU %.1f µs and %.2f commands per message, "
						+ "client CPU %.1f µs per message, script calls %d taking %.1f µs each", topic, rate, cpu,
				commands, clientCpu,
				scriptCalls(statsAfter, "calls") - scriptCalls(statsBefore, "calls"),
				(scriptCalls(statsAfter, "usec") - scriptCalls(statsBefore, "usec"))
						/ (double) Math.max(1, scriptCalls(statsAfter, "calls") - scriptCalls(statsBefore, "calls"))));
		this.admin.flush();
		return new Drain(rate, cpu, commands);
	}

	/**
	 * A field of the script calls' lines in {@code INFO commandstats} ({@code FCALL} and {@code EVALSHA}): their calls,
	 * or the microseconds they took.
	 */
	private static long scriptCalls(Properties commandstats, String field) {
		long sum = 0;
		for (String command : new String[] { "cmdstat_fcall", "cmdstat_evalsha" }) {
			String line = commandstats.getProperty(command, "");
			for (String part : line.trim().split(",")) {
				if (part.startsWith(field + "=")) {
					sum += Long.parseLong(part.substring(field.length() + 1));
				}
			}
		}
		return sum;
	}

	/** This JVM's CPU time (the consumer runs in it), or 0 where the JVM does not tell. */
	private static long processCpuNanos() {
		return (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os)
				? os.getProcessCpuTime() : 0;
	}

	/** Redis's used memory per waiting message (due in an hour), with an 11-character group key or without. */
	private double bytesPerWaiting(boolean grouped) {
		this.admin.flush();
		String topic = grouped ? "size-grouped" : "size-plain";
		// the topic's keys exist before the count starts (its known-topics entry, meta)
		this.system.queue().schedule(request(topic, "first", PAYLOAD, grouped ? "tenant-0000" : null)
			.dueAt(Instant.now().plusSeconds(3600)).build());
		long before = this.admin.usedMemory();
		Instant due = Instant.now().plusSeconds(3600);
		List<ScheduleRequest> requests = new ArrayList<>(this.backlog);
		for (int i = 0; i < this.backlog; i++) {
			String group = grouped ? String.format(Locale.ROOT, "tenant-%04d", i % GROUPS) : null;
			requests.add(request(topic, "m-" + i, PAYLOAD, group).dueAt(due.plusMillis(i)).build());
		}
		schedule(requests);
		double bytes = (this.admin.usedMemory() - before) / (double) this.backlog;
		this.admin.flush();
		return bytes;
	}

	/** How long storing the backlog takes now, from the time 5,000 messages take (stored and deleted). */
	private long scheduleMillis() {
		int sample = Math.min(5_000, this.backlog);
		List<ScheduleRequest> requests = new ArrayList<>(sample);
		for (int i = 0; i < sample; i++) {
			requests.add(request("fair-sample", "s-" + i, PAYLOAD, null).delay(java.time.Duration.ofHours(1)).build());
		}
		long started = System.nanoTime();
		schedule(requests);
		long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
		this.admin.flush();
		return millis * this.backlog / sample;
	}

	private void schedule(List<ScheduleRequest> requests) {
		RedisDelayedQueue queue = this.system.queue();
		for (int i = 0; i < requests.size(); i += 1000) {
			queue.scheduleAll(requests.subList(i, Math.min(requests.size(), i + 1000)));
		}
	}

	private static ScheduleRequest.Builder request(String topic, String id, String payload, @Nullable String group) {
		ScheduleRequest.Builder builder = ScheduleRequest.builder(topic, payload).id(id);
		return (group != null) ? builder.group(group) : builder;
	}

}
