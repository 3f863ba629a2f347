package io.github.delayqueue.actuate;

import io.github.delayqueue.DelayedQueueAdmin;
import io.github.delayqueue.GroupControlState;
import io.github.delayqueue.TopicControlState;
import io.github.delayqueue.TopicLimits;
import io.github.delayqueue.actuate.DelayQueueEndpoint.Changed;
import org.jspecify.annotations.Nullable;

import static io.github.delayqueue.actuate.EndpointRequests.badRequest;

/**
 * The {@code delayqueue} endpoint's writes: replays and purges dead letters, pauses and resumes a topic or a group,
 * and sets their limits on every instance, through the admin; a {@code 0} clears a limit (or sets a group's default
 * weight), a value left out keeps the topic's. It is given checked topics and ids.
 */
final class TopicChanges {

	private final DelayedQueueAdmin admin;

	TopicChanges(DelayedQueueAdmin admin) {
		this.admin = admin;
	}

	/**
	 * Pauses or resumes a group, or sets its cap, weight or rate limit.
	 * @return the group's controls now, or {@code null} for another {@code action}
	 */
	@Nullable GroupControlState changeGroup(String topic, String group, String action, @Nullable Integer maxInFlight,
			@Nullable Integer weight, @Nullable Double ratePerSecond) {
		return badRequest("Invalid group change", () -> switch (action) {
			case "pause" -> this.admin.pauseGroup(topic, group);
			case "resume" -> this.admin.resumeGroup(topic, group);
			case "cap" -> {
				if (maxInFlight == null) {
					throw new IllegalArgumentException("maxInFlight is required (0 clears the group's cap)");
				}
				yield this.admin.setGroupCap(topic, group, (maxInFlight == 0) ? null : maxInFlight);
			}
			case "weight" -> {
				if (weight == null) {
					throw new IllegalArgumentException("weight is required (0 sets the default, 1)");
				}
				yield this.admin.setGroupWeight(topic, group, (weight == 0) ? null : weight);
			}
			case "rate" -> {
				if (ratePerSecond == null) {
					throw new IllegalArgumentException("ratePerSecond is required (0 clears the group's rate limit)");
				}
				yield this.admin.setGroupRate(topic, group, (ratePerSecond == 0) ? null : ratePerSecond);
			}
			default -> null;
		});
	}

	/**
	 * Replays every dead letter ({@code dead}), or pauses or resumes the topic.
	 * @return how many were replayed, or the topic's controls now; {@code null} for another {@code part}
	 */
	@Nullable Object changeTopic(String topic, String part) {
		return switch (part) {
			case DelayQueueEndpoint.DEAD -> new Changed(this.admin.replayDeadLetters(topic));
			case "pause" -> this.admin.pause(topic);
			case "resume" -> this.admin.resume(topic);
			default -> null;
		};
	}

	/**
	 * Sets a topic's limits and its groups' defaults: a value left out keeps the topic's, {@code 0} clears it.
	 * @return the topic's controls now
	 */
	TopicControlState limits(String topic, @Nullable Double ratePerSecond, @Nullable Integer maxInFlight,
			@Nullable Integer groupMaxInFlight, @Nullable Double groupRatePerSecond) {
		return badRequest("Invalid limits", () -> {
			if (groupRatePerSecond != null) {
				this.admin.setGroupRate(topic, null, (groupRatePerSecond == 0) ? null : groupRatePerSecond);
			}
			if (groupMaxInFlight != null) {
				this.admin.setGroupCap(topic, null, (groupMaxInFlight == 0) ? null : groupMaxInFlight);
			}
			TopicLimits current = this.admin.controls(topic).limits();
			Double rate = (ratePerSecond == null) ? current.ratePerSecond() : (ratePerSecond == 0) ? null : ratePerSecond;
			Integer cap = (maxInFlight == null) ? current.maxInFlight() : (maxInFlight == 0) ? null : maxInFlight;
			return this.admin.setLimits(topic, new TopicLimits(rate, cap));
		});
	}

	Changed replay(String topic, String id) {
		return new Changed(this.admin.replayDeadLetter(topic, id) ? 1L : 0L);
	}

	Changed purgeAll(String topic) {
		return new Changed(this.admin.purgeDeadLetters(topic));
	}

	Changed purge(String topic, String id) {
		return new Changed(this.admin.purgeDeadLetter(topic, id) ? 1L : 0L);
	}

}
