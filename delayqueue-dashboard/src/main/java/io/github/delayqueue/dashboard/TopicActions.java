package io.github.delayqueue.dashboard;

import io.github.delayqueue.DelayedQueueAdmin;
import io.github.delayqueue.TopicControlState;
import io.github.delayqueue.TopicLimits;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.util.Assert;

/**
 * What the dashboard changes: dead letters replayed or purged, topics paused, resumed or limited, on every instance.
 * Refused unless writes are open (read-only by default); after each change the topic is sampled again, so that the
 * page shows it at once.
 *
 * @since 1.0.0
 */
public class TopicActions {

	private static final Logger logger = LoggerFactory.getLogger(TopicActions.class);

	private final DelayedQueueAdmin admin;

	private final TopicSampler sampler;

	private final boolean writable;

	/**
	 * Creates the actions.
	 * @param admin where topics are changed
	 * @param sampler samples a topic after a change
	 * @param writable whether changes are allowed
	 */
	public TopicActions(DelayedQueueAdmin admin, TopicSampler sampler, boolean writable) {
		Assert.notNull(admin, "DelayedQueueAdmin must not be null");
		Assert.notNull(sampler, "TopicSampler must not be null");
		this.admin = admin;
		this.sampler = sampler;
		this.writable = writable;
	}

	/**
	 * Whether changes are allowed.
	 * @return {@code true} if writes are open
	 */
	public boolean isWritable() {
		return this.writable;
	}

	/**
	 * Replays one dead letter, or all of a topic's.
	 * @param topic the topic
	 * @param id the message id, or {@code null} for every dead letter
	 * @return how many were replayed
	 * @throws ReadOnlyDashboardException if writes are not open
	 */
	public long replay(String topic, @Nullable String id) {
		requireWritable();
		long count = (id != null) ? (this.admin.replayDeadLetter(topic, id) ? 1 : 0)
				: this.admin.replayDeadLetters(topic);
		resample(topic);
		return count;
	}

	/**
	 * Deletes one dead letter, or all of a topic's.
	 * @param topic the topic
	 * @param id the message id, or {@code null} for every dead letter
	 * @return how many were deleted
	 * @throws ReadOnlyDashboardException if writes are not open
	 */
	public long purge(String topic, @Nullable String id) {
		requireWritable();
		long count = (id != null) ? (this.admin.purgeDeadLetter(topic, id) ? 1 : 0)
				: this.admin.purgeDeadLetters(topic);
		resample(topic);
		return count;
	}

	/**
	 * Pauses delivery of a topic on every instance.
	 * @param topic the topic
	 * @return its controls now
	 * @throws ReadOnlyDashboardException if writes are not open
	 */
	public TopicControlState pause(String topic) {
		requireWritable();
		return sampled(topic, this.admin.pause(topic));
	}

	/**
	 * Resumes delivery of a topic on every instance.
	 * @param topic the topic
	 * @return its controls now
	 * @throws ReadOnlyDashboardException if writes are not open
	 */
	public TopicControlState resume(String topic) {
		requireWritable();
		return sampled(topic, this.admin.resume(topic));
	}

	/**
	 * Sets a topic's rate limit and concurrency cap on every instance.
	 * @param topic the topic
	 * @param limits the limits ({@link TopicLimits#NONE} clears them)
	 * @return its controls now
	 * @throws ReadOnlyDashboardException if writes are not open
	 */
	public TopicControlState limit(String topic, TopicLimits limits) {
		requireWritable();
		return sampled(topic, this.admin.setLimits(topic, limits));
	}

	private TopicControlState sampled(String topic, TopicControlState state) {
		resample(topic);
		return state;
	}

	/** The change is made: a failure to sample it now only leaves it to the next sampling. */
	private void resample(String topic) {
		try {
			this.sampler.sample(topic);
		}
		catch (RuntimeException ex) {
			logger.debug("Could not sample topic '{}' after a change", topic, ex);
		}
	}

	private void requireWritable() {
		if (!this.writable) {
			throw new ReadOnlyDashboardException();
		}
	}

}
