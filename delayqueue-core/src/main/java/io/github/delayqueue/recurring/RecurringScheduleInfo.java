package io.github.delayqueue.recurring;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;

import org.jspecify.annotations.Nullable;

/**
 * A recurring schedule as stored in Redis, with where it stands.
 *
 * @param name the name
 * @param topic the topic its messages go to
 * @param cron the cron expression, or {@code null} for a fixed interval
 * @param every the interval, or {@code null} for a cron expression
 * @param zone the zone the cron expression is read in
 * @param payloadJson the payload of each tick's message, as the JSON stored
 * @param missedTicks what happens to missed ticks
 * @param maxMissed the most missed ticks {@link MissedTicks#FIRE_EACH} fires
 * @param paused whether it is paused
 * @param lastTick the latest tick whose message was stored, or {@code null} if none yet
 * @param nextTick the next tick it will fire, or {@code null} if paused or never again
 * @since 1.0.0
 */
public record RecurringScheduleInfo(String name, String topic, @Nullable String cron, @Nullable Duration every,
		ZoneId zone, String payloadJson, MissedTicks missedTicks, int maxMissed, boolean paused,
		@Nullable Instant lastTick, @Nullable Instant nextTick) {
}
