package io.github.delayqueue.core;

import java.util.List;

import org.springframework.context.ApplicationEvent;

/**
 * Published when queue changes held for a transaction failed after it committed (Redis unreachable at that moment,
 * for instance): the database changes stand, these queue changes did not happen. Listen for it to repair, e.g. by
 * scheduling the messages again with the same ids (harmless where they exist) once Redis is back. The failure is
 * also logged with the ids and counted ({@code delayqueue.transaction.failed}).
 *
 * @since 1.0.0
 */
public class AfterCommitFailedEvent extends ApplicationEvent {

	private final String operation;

	private final String topic;

	private final List<String> ids;

	private final RuntimeException failure;

	/**
	 * Creates the event.
	 * @param source the queue
	 * @param operation {@code schedule}, {@code cancel} or {@code reschedule}
	 * @param topic the topic
	 * @param ids the ids of the messages concerned
	 * @param failure what the write threw
	 */
	public AfterCommitFailedEvent(Object source, String operation, String topic, List<String> ids,
			RuntimeException failure) {
		super(source);
		this.operation = operation;
		this.topic = topic;
		this.ids = List.copyOf(ids);
		this.failure = failure;
	}

	/**
	 * What failed.
	 * @return {@code schedule}, {@code cancel} or {@code reschedule}
	 */
	public String getOperation() {
		return this.operation;
	}

	/**
	 * The topic.
	 * @return the topic
	 */
	public String getTopic() {
		return this.topic;
	}

	/**
	 * The ids of the messages whose change did not happen (for a schedule, those whose outcome is unknown: some may
	 * have been stored if the failure came mid-call).
	 * @return the ids
	 */
	public List<String> getIds() {
		return this.ids;
	}

	/**
	 * What the write threw.
	 * @return the exception
	 */
	public RuntimeException getFailure() {
		return this.failure;
	}

	@Override
	public String toString() {
		return "AfterCommitFailedEvent[operation=" + this.operation + ", topic=" + this.topic + ", ids=" + this.ids
				+ ", failure=" + this.failure + "]";
	}

}
