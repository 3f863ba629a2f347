package io.github.delayqueue;

import java.util.ArrayList;
import java.util.List;

import org.springframework.dao.DataAccessException;

/**
 * Thrown by {@link DelayedQueue#scheduleAll(List)} when Redis failed part way: it says, request by request, what
 * was stored. Requests are written in atomic chunks (per topic, up to a thousand each); a chunk whose call failed
 * may or may not have been stored ({@link Outcome#UNKNOWN}), and the chunks after it were not sent.
 * <p>
 * Every request here carries its id, generated ones included, so {@link #getUnfinished()} can be passed to
 * {@code scheduleAll} again: scheduling is idempotent by id, so a request stored already is not stored twice.
 *
 * @since 0.1.0
 */
public class PartialScheduleException extends DataAccessException {

	private static final long serialVersionUID = 1L;

	/** What became of one request. */
	public enum Outcome {

		/** The message was stored. */
		STORED,

		/** A message with this id existed in the topic: nothing changed. */
		EXISTED,

		/** The call that carried it failed: it may or may not be stored. */
		UNKNOWN,

		/** It was not sent. */
		NOT_SENT

	}

	/**
	 * What became of one request.
	 *
	 * @param request the request, with its id (generated if it had none)
	 * @param outcome what became of it
	 */
	public record Entry(ScheduleRequest request, Outcome outcome) {
	}

	private final transient List<Entry> entries;

	/**
	 * Creates the exception.
	 * @param requests the requests, in the order given to {@code scheduleAll}
	 * @param ids the id of each request (generated where the request had none)
	 * @param outcomes what became of each request
	 * @param cause the failure
	 */
	public PartialScheduleException(List<ScheduleRequest> requests, List<String> ids, List<Outcome> outcomes,
			Throwable cause) {
		super(describe(outcomes, cause), cause);
		List<Entry> list = new ArrayList<>(requests.size());
		for (int i = 0; i < requests.size(); i++) {
			list.add(new Entry(requests.get(i).withId(ids.get(i)), outcomes.get(i)));
		}
		this.entries = List.copyOf(list);
	}

	/**
	 * What became of each request, in the order given.
	 * @return one entry per request
	 */
	public List<Entry> getEntries() {
		return this.entries;
	}

	/**
	 * The requests that may not be stored ({@link Outcome#UNKNOWN} and {@link Outcome#NOT_SENT}), with their ids:
	 * safe to schedule again.
	 * @return the requests
	 */
	public List<ScheduleRequest> getUnfinished() {
		return this.entries.stream()
			.filter((entry) -> entry.outcome() == Outcome.UNKNOWN || entry.outcome() == Outcome.NOT_SENT)
			.map(Entry::request)
			.toList();
	}

	private static String describe(List<Outcome> outcomes, Throwable cause) {
		int[] counts = new int[Outcome.values().length];
		outcomes.forEach((outcome) -> counts[outcome.ordinal()]++);
		return "Scheduling failed part way: " + counts[Outcome.STORED.ordinal()] + " stored, "
				+ counts[Outcome.EXISTED.ordinal()] + " existed, " + counts[Outcome.UNKNOWN.ordinal()]
				+ " unknown, " + counts[Outcome.NOT_SENT.ordinal()] + " not sent: " + cause.getMessage();
	}

}
