package io.github.delayqueue.dashboard;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.github.delayqueue.recurring.RecurringScheduleInfo;
import org.jspecify.annotations.Nullable;

/**
 * What the dashboard's page shows at the top, read from the sampler's memory only (no Redis call).
 *
 * @param sampledAt when the topics were last sampled, or {@code null} if not yet
 * @param failure why the last sampling failed, or {@code null}
 * @param writable whether the dashboard changes data (replay, purge, pause, resume, limits)
 * @param refreshMillis how often the page asks again (the sampling interval)
 * @param unsampledTopics known topics beyond the most the dashboard samples
 * @param topics the sampled topics, by name
 * @param recurring the recurring schedules, by name
 * @since 1.0.0
 */
public record Overview(@Nullable Instant sampledAt, @Nullable String failure, boolean writable, long refreshMillis,
		int unsampledTopics, List<TopicOverview> topics, List<ScheduleOverview> recurring) {

	/**
	 * Creates an overview.
	 * @param sampledAt when the topics were last sampled
	 * @param failure why the last sampling failed
	 * @param writable whether writes are open
	 * @param refreshMillis how often the page asks again
	 * @param unsampledTopics known topics not sampled
	 * @param topics the topics
	 * @param recurring the recurring schedules
	 */
	public Overview {
		topics = List.copyOf(topics);
		recurring = List.copyOf(recurring);
	}

	/**
	 * The overview of what a sampler holds now.
	 * @param sampler the sampler
	 * @param writable whether writes are open
	 * @return the overview
	 */
	public static Overview of(TopicSampler sampler, boolean writable) {
		List<TopicOverview> topics = new ArrayList<>();
		for (Map.Entry<String, List<TopicSample>> entry : sampler.histories().entrySet()) {
			topics.add(TopicOverview.of(entry.getKey(), entry.getValue()));
		}
		List<ScheduleOverview> schedules = sampler.schedules().stream().map(ScheduleOverview::of).toList();
		return new Overview(sampler.sampledAt(), sampler.failure(), writable, sampler.interval().toMillis(),
				sampler.unsampledTopics(), topics, schedules);
	}

	/**
	 * A recurring schedule.
	 *
	 * @param name its name
	 * @param topic the topic its ticks go to
	 * @param schedule its cron expression, or its interval (ISO-8601)
	 * @param zone the zone its cron expression is read in
	 * @param paused whether it is paused
	 * @param lastTick the latest tick stored, or {@code null}
	 * @param nextTick the next tick, or {@code null} if paused or never again
	 */
	public record ScheduleOverview(String name, String topic, String schedule, String zone, boolean paused,
			@Nullable Instant lastTick, @Nullable Instant nextTick) {

		static ScheduleOverview of(RecurringScheduleInfo info) {
			String schedule = (info.cron() != null) ? "cron " + info.cron() : "every " + info.every();
			return new ScheduleOverview(info.name(), info.topic(), schedule, info.zone().getId(), info.paused(),
					info.lastTick(), info.nextTick());
		}

	}

}
