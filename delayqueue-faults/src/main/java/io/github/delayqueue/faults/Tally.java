package io.github.delayqueue.faults;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import org.jspecify.annotations.Nullable;

/**
 * Counts what a run did: every acknowledged message against every recorded delivery.
 */
final class Tally {

	/** How soon after a stall's end a stalled consumer's handler records a start it began before the stall. */
	private static final long RESUMED_WITHIN_MILLIS = 1_000;


	/** A delivery later than this after its due time is late, for the time to recover. */
	static final long LATE_MILLIS = 1_000;

	private Tally() {
	}

	/**
	 * Counts a run whose queue cannot be asked what it still holds: every message sent and never handled is lost.
	 * @param sent the acknowledged messages: key to due time
	 * @param deliveries what the handlers recorded
	 * @param crashed the worker incarnations that crashed or stalled past their lease
	 * @param events the injected faults
	 * @param leaseMillis the visibility timeout
	 * @return the figures, with {@code unfinished} {@code null}
	 */
	static Figures count(Map<String, Long> sent, List<Ledger.Delivery> deliveries, Set<String> crashed,
			List<Event> events, long leaseMillis) {
		return count(sent, deliveries, crashed, events, leaseMillis, null);
	}

	/**
	 * Counts a run.
	 * @param sent the acknowledged messages: key to due time
	 * @param deliveries what the handlers recorded
	 * @param crashed the worker incarnations that crashed or stalled past their lease: a duplicate whose earlier
	 * delivery was theirs is explained
	 * @param events the injected faults
	 * @param leaseMillis the visibility timeout: a duplicate whose earlier delivery started within a lease before a
	 * Redis-side fault ended is explained by the fault (its acknowledgement may not have reached Redis)
	 * @param held of the messages sent and not handled, those the queue still held when the suite stopped waiting
	 * (looked up before {@code deliveries} were read), with where; {@code null} if the queue cannot tell (then every
	 * message not handled counts as lost). One held as a dead letter is neither lost nor unfinished: the run counts
	 * it among the ordinary messages dead-lettered
	 * @return the figures
	 */
	static Figures count(Map<String, Long> sent, List<Ledger.Delivery> deliveries, Set<String> crashed,
			List<Event> events, long leaseMillis, @Nullable Map<String, QueueClient.Held> held) {
		Map<String, List<Ledger.Delivery>> byKey = new HashMap<>();
		int early = 0;
		for (Ledger.Delivery delivery : deliveries) {
			Long due = sent.get(delivery.key());
			if (due == null) {
				// a message whose schedule call failed, yet reached Redis: not counted as sent
				continue;
			}
			byKey.computeIfAbsent(delivery.key(), (k) -> new ArrayList<>()).add(delivery);
			if (delivery.startedAt() < due) {
				early++;
			}
		}
		int duplicated = 0;
		int explained = 0;
		List<String> unexplained = new ArrayList<>();
		long maxLateness = 0;
		List<long[]> firsts = new ArrayList<>();
		List<Ledger.Delivery> firstDeliveries = new ArrayList<>();
		for (Map.Entry<String, List<Ledger.Delivery>> entry : byKey.entrySet()) {
			List<Ledger.Delivery> all = entry.getValue();
			all.sort(Comparator.comparingLong(Ledger.Delivery::startedAt));
			long due = sent.get(entry.getKey());
			long firstAt = all.get(0).startedAt();
			maxLateness = Math.max(maxLateness, firstAt - due);
			firsts.add(new long[] { firstAt, firstAt - due });
			firstDeliveries.add(all.get(0));
			for (int i = 1; i < all.size(); i++) {
				duplicated++;
				if (explains(all.get(i - 1), crashed, events, leaseMillis)
						|| startedAcrossAStall(all.get(i), crashed, events)) {
					explained++;
				}
				else if (unexplained.size() < 10) {
					unexplained.add(entry.getKey() + " due " + due + ": " + all);
				}
			}
		}
		List<String> lost = new ArrayList<>();
		List<String> unfinished = new ArrayList<>();
		Map<String, Integer> unfinishedStates = new TreeMap<>();
		for (String key : sent.keySet()) {
			if (byKey.containsKey(key)) {
				continue;
			}
			QueueClient.Held where = (held != null) ? held.get(key) : null;
			if (where == null) {
				lost.add(key);
			}
			else if (!QueueClient.Held.DEAD.equals(where.state())) {
				unfinished.add(key + " " + where.state() + " after " + where.attempts() + " attempts, due "
						+ sent.get(key));
				unfinishedStates.merge(where.state(), 1, Integer::sum);
			}
		}
		lost.sort(null);
		unfinished.sort(null);
		return new Figures(sent.size(), byKey.size(), lost.size(), (held != null) ? unfinished.size() : null,
				unfinishedStates, duplicated, explained, early, maxLateness, recovery(firsts, events),
				lost.subList(0, Math.min(10, lost.size())), unfinished.subList(0, Math.min(10, unfinished.size())),
				unexplained, latest(firstDeliveries, sent));
	}

	/**
	 * The messages sent that no delivery recorded: those to look up in the queue before counting.
	 * @param sent the acknowledged messages
	 * @param deliveries what the handlers recorded
	 * @return their keys
	 */
	static Set<String> unhandled(Map<String, Long> sent, List<Ledger.Delivery> deliveries) {
		Set<String> unhandled = new HashSet<>(sent.keySet());
		deliveries.forEach((delivery) -> unhandled.remove(delivery.key()));
		return unhandled;
	}

	/** The five latest first deliveries: key, attempt and lateness. */
	private static List<String> latest(List<Ledger.Delivery> firsts, Map<String, Long> sent) {
		return firsts.stream()
			.sorted(Comparator.comparingLong((Ledger.Delivery d) -> d.startedAt() - sent.get(d.key())).reversed())
			.limit(5)
			.map((d) -> d.key() + " attempt " + d.attempt() + " " + (d.startedAt() - sent.get(d.key())) + " ms late")
			.toList();
	}

	private static boolean explains(Ledger.Delivery earlier, Set<String> crashed, List<Event> events,
			long leaseMillis) {
		if (crashed.contains(earlier.incarnation())) {
			return true;
		}
		for (Event event : events) {
			if (event.redisSide() && earlier.startedAt() >= event.start() - leaseMillis
					&& earlier.startedAt() <= event.end() + leaseMillis) {
				return true;
			}
		}
		return false;
	}

	/**
	 * Whether a later delivery is one whose handler a stall cut in two: its consumer checked the lease and began the
	 * delivery before it was stopped, and the handler recorded its start only when the JVM went on. Its recorded
	 * start then follows the redelivery by another consumer although it began first; the library's part (the lease
	 * check before a start) happened in time. Only a consumer marked as stalled, recording within a second of its
	 * stall's end, is read so.
	 */
	private static boolean startedAcrossAStall(Ledger.Delivery later, Set<String> crashed, List<Event> events) {
		if (!crashed.contains(later.incarnation())) {
			return false;
		}
		for (Event event : events) {
			if (!event.redisSide() && later.startedAt() >= event.start()
					&& later.startedAt() <= event.end() + RESUMED_WITHIN_MILLIS) {
				return true;
			}
		}
		return false;
	}

	/**
	 * The longest time, over the faults, from a fault's start to the last late first delivery before the next fault:
	 * how long deliveries took to be on time again (0 where none was late).
	 */
	private static long recovery(List<long[]> firsts, List<Event> events) {
		long longest = 0;
		for (int i = 0; i < events.size(); i++) {
			long start = events.get(i).start();
			long next = (i + 1 < events.size()) ? events.get(i + 1).start() : Long.MAX_VALUE;
			for (long[] first : firsts) {
				if (first[0] >= start && first[0] < next && first[1] > LATE_MILLIS) {
					longest = Math.max(longest, first[0] - start);
				}
			}
		}
		return longest;
	}

	/**
	 * One injected fault.
	 *
	 * @param start when it began, epoch milliseconds
	 * @param end when it was over (the process back, the connection free again)
	 * @param redisSide whether Redis or the connections to it were hit (acknowledgements may be lost)
	 */
	record Event(long start, long end, boolean redisSide) {
	}

	/**
	 * The figures of a run.
	 *
	 * @param sent messages the queue acknowledged
	 * @param delivered of them, those handled at least once
	 * @param lost of them, those gone: never handled, and not held by the queue when the suite stopped waiting (nor
	 * among its dead letters); where the queue cannot be asked (Redisson), every message never handled
	 * @param unfinished of them, those never handled that the queue still held (waiting, retrying or leased) when the
	 * suite stopped waiting: late, not lost; {@code null} where the queue cannot be asked (Redisson: n/a)
	 * @param unfinishedStates the unfinished messages by the state the queue gave
	 * @param duplicated deliveries beyond the first
	 * @param explained of those, the ones a crash or stall explains (the earlier delivery's JVM crashed or stalled
	 * past its lease, or a Redis-side fault hit its acknowledgement)
	 * @param early deliveries that started before the message was due
	 * @param maxLatenessMillis the longest time from a message's due time to its first delivery
	 * @param recoverMillis the longest time from a fault's start until deliveries were on time again (no first
	 * delivery more than {@link #LATE_MILLIS} late)
	 * @param lostSample up to ten lost keys, to start looking
	 * @param unfinishedSample up to ten unfinished messages, with their state, attempts and due time
	 * @param unexplainedSample up to ten duplicates no crash or stall explains, with their deliveries
	 * @param latestSample the five latest first deliveries, with their attempt (2 or more: a redelivery)
	 */
	record Figures(int sent, int delivered, int lost, @Nullable Integer unfinished, Map<String, Integer> unfinishedStates,
			int duplicated, int explained, int early, long maxLatenessMillis, long recoverMillis, List<String> lostSample,
			List<String> unfinishedSample, List<String> unexplainedSample, List<String> latestSample) {
	}

}
