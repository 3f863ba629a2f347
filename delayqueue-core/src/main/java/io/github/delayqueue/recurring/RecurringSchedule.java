package io.github.delayqueue.recurring;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.Objects;

import io.github.delayqueue.Topics;
import io.github.delayqueue.payload.JsonValues;
import org.jspecify.annotations.Nullable;

import org.springframework.scheduling.support.CronExpression;
import org.springframework.util.Assert;

/**
 * A recurring schedule: on every tick of a cron expression (in a time zone) or of a fixed interval, one message
 * with the schedule's payload for its topic, delivered to the topic's listener like any message, due at the tick.
 * <p>
 * Ticks are instants, the same on every instance: a cron expression's in its zone (Spring's {@link CronExpression},
 * six fields with seconds); a fixed interval's at whole multiples of it since the epoch (every minute ticks at
 * {@code :00}). Across daylight-saving changes a cron schedule ticks as Spring's {@code @Scheduled(cron)} does
 * (both follow {@link CronExpression}): a local time in the skipped hour does not occur, so it does not tick that day;
 * a local time in the repeated hour occurs twice, and ticks at both instants. A schedule that must tick exactly once a
 * day avoids the hour of the change (02:00 to 03:00 in most of Europe) or uses a zone without daylight saving.
 *
 * @since 1.0.0
 */
public final class RecurringSchedule {

	/** The most missed ticks {@link MissedTicks#FIRE_EACH} fires by default. */
	public static final int DEFAULT_MAX_MISSED = 10;

	private static final int MAX_NAME_LENGTH = 100;

	private final String name;

	private final String topic;

	private final @Nullable String cron;

	private final @Nullable Duration every;

	private final ZoneId zone;

	private final @Nullable Object payload;

	private final @Nullable String payloadJson;

	private final MissedTicks missedTicks;

	private final int maxMissed;

	private final @Nullable CronExpression expression;

	private RecurringSchedule(Builder builder) {
		this.name = builder.name;
		this.topic = builder.topic;
		this.cron = builder.cron;
		this.every = builder.every;
		this.zone = builder.zone;
		this.payload = builder.payload;
		this.payloadJson = builder.payloadJson;
		this.missedTicks = builder.missedTicks;
		this.maxMissed = builder.maxMissed;
		this.expression = (this.cron != null) ? CronExpression.parse(this.cron) : null;
	}

	/**
	 * Starts a schedule.
	 * @param name its name: 1 to 100 letters, digits, {@code .}, {@code _}, {@code -} or {@code :}
	 * @param topic the topic its messages go to
	 * @return a builder; set a cron expression or an interval, and a payload
	 */
	public static Builder builder(String name, String topic) {
		return new Builder(name, topic);
	}

	/**
	 * Checks a schedule name.
	 * @param name the name
	 * @return the name
	 * @throws IllegalArgumentException if it breaks the rule of {@link #builder(String, String)}
	 */
	public static String validateName(@Nullable String name) {
		Assert.isTrue(name != null && !name.isEmpty() && name.length() <= MAX_NAME_LENGTH,
				() -> "Recurring schedule name must have 1 to " + MAX_NAME_LENGTH + " characters, but was '" + name
						+ "'");
		for (int i = 0; i < name.length(); i++) {
			char c = name.charAt(i);
			boolean allowed = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.'
					|| c == '_' || c == '-' || c == ':';
			if (!allowed) {
				throw new IllegalArgumentException("Recurring schedule name may hold letters, digits, '.', '_', '-' "
						+ "and ':' only, but '" + name + "' has '" + c + "' at index " + i);
			}
		}
		return name;
	}

	/**
	 * The name, unique among the schedules with this key prefix.
	 * @return the name
	 */
	public String name() {
		return this.name;
	}

	/**
	 * The topic its messages go to.
	 * @return the topic
	 */
	public String topic() {
		return this.topic;
	}

	/**
	 * The cron expression, if it ticks by one.
	 * @return the expression, or {@code null} for a fixed interval
	 */
	public @Nullable String cron() {
		return this.cron;
	}

	/**
	 * The interval, if it ticks by one.
	 * @return the interval, or {@code null} for a cron expression
	 */
	public @Nullable Duration every() {
		return this.every;
	}

	/**
	 * The zone the cron expression is read in.
	 * @return the zone (UTC unless set)
	 */
	public ZoneId zone() {
		return this.zone;
	}

	/**
	 * The payload of each tick's message.
	 * @return the payload, serialised as JSON when the schedule is defined, or {@code null} if it was given as
	 * JSON text
	 */
	public @Nullable Object payload() {
		return this.payload;
	}

	/**
	 * The payload of each tick's message as JSON text, if it was given so.
	 * @return the JSON text, or {@code null} if it was given as an object
	 */
	public @Nullable String payloadJson() {
		return this.payloadJson;
	}

	/**
	 * What happens to ticks missed while no instance ran or while it was paused.
	 * @return the policy
	 */
	public MissedTicks missedTicks() {
		return this.missedTicks;
	}

	/**
	 * The most missed ticks {@link MissedTicks#FIRE_EACH} fires (the latest ones).
	 * @return the bound
	 */
	public int maxMissed() {
		return this.maxMissed;
	}

	/**
	 * The first tick strictly after an instant.
	 * @param after the instant
	 * @return the tick, or {@code null} if the cron expression never fires again
	 */
	public @Nullable Instant nextTick(Instant after) {
		Duration interval = this.every;
		if (interval != null) {
			long step = interval.toMillis();
			long afterMillis = after.toEpochMilli();
			return Instant.ofEpochMilli(Math.floorDiv(afterMillis, step) * step + step);
		}
		CronExpression cronExpression = Objects.requireNonNull(this.expression);
		ZonedDateTime next = cronExpression.next(ZonedDateTime.ofInstant(after, this.zone));
		return (next != null) ? next.toInstant() : null;
	}

	@Override
	public String toString() {
		return "RecurringSchedule[name=" + this.name + ", topic=" + this.topic + ", "
				+ ((this.cron != null) ? "cron=" + this.cron + ", zone=" + this.zone : "every=" + this.every)
				+ ", missedTicks=" + this.missedTicks + "]";
	}

	/** Builds a {@link RecurringSchedule}; each setter validates its value. */
	public static final class Builder {

		private final String name;

		private final String topic;

		private @Nullable String cron;

		private @Nullable Duration every;

		private ZoneId zone = ZoneId.of("UTC");

		private @Nullable Object payload;

		private @Nullable String payloadJson;

		private MissedTicks missedTicks = MissedTicks.FIRE_ONCE;

		private int maxMissed = DEFAULT_MAX_MISSED;

		private Builder(String name, String topic) {
			this.name = validateName(name);
			this.topic = Topics.validate(topic);
		}

		/**
		 * Ticks by a cron expression (six fields, with seconds, as Spring's {@code @Scheduled}).
		 * @param cron the expression
		 * @return this builder
		 */
		public Builder cron(String cron) {
			Assert.isTrue(cron != null && CronExpression.isValidExpression(cron),
					() -> "Invalid cron expression '" + cron + "' (six fields: second minute hour day month weekday)");
			this.cron = cron;
			this.every = null;
			return this;
		}

		/**
		 * Ticks at every whole multiple of an interval since the epoch.
		 * @param every at least 100 milliseconds, in whole milliseconds
		 * @return this builder
		 */
		public Builder every(Duration every) {
			Assert.isTrue(every != null && every.toMillis() >= 100 && every.toNanos() % 1_000_000 == 0,
					() -> "Interval must be at least 100ms, in whole milliseconds, but was " + every);
			this.every = every;
			this.cron = null;
			return this;
		}

		/**
		 * Reads the cron expression in a zone.
		 * @param zone the zone
		 * @return this builder
		 */
		public Builder zone(ZoneId zone) {
			Assert.notNull(zone, "Zone must not be null");
			this.zone = zone;
			return this;
		}

		/**
		 * Sets the payload of every tick's message.
		 * @param payload the payload, serialised as JSON when the schedule is defined
		 * @return this builder
		 */
		public Builder payload(Object payload) {
			Assert.notNull(payload, "Payload must not be null");
			this.payload = payload;
			this.payloadJson = null;
			return this;
		}

		/**
		 * Sets the payload of every tick's message as JSON text, stored as it is (for definitions in properties).
		 * @param json a JSON value
		 * @return this builder
		 */
		public Builder payloadJson(String json) {
			Assert.hasText(json, "Payload JSON must not be empty");
			String problem = JsonValues.problem(json);
			if (problem != null) {
				throw new IllegalArgumentException(
						"Payload of recurring schedule '" + this.name + "' is not JSON: " + problem);
			}
			this.payloadJson = json;
			this.payload = null;
			return this;
		}

		/**
		 * Sets what happens to missed ticks.
		 * @param missedTicks the policy
		 * @return this builder
		 */
		public Builder missedTicks(MissedTicks missedTicks) {
			Assert.notNull(missedTicks, "MissedTicks must not be null");
			this.missedTicks = missedTicks;
			return this;
		}

		/**
		 * Sets the most missed ticks {@link MissedTicks#FIRE_EACH} fires.
		 * @param maxMissed 1 to 1000
		 * @return this builder
		 */
		public Builder maxMissed(int maxMissed) {
			Assert.isTrue(maxMissed >= 1 && maxMissed <= 1000,
					() -> "Max missed must be between 1 and 1000, but was " + maxMissed);
			this.maxMissed = maxMissed;
			return this;
		}

		/**
		 * Builds the schedule.
		 * @return the schedule
		 * @throws IllegalArgumentException if it has neither a cron expression nor an interval, or no payload
		 */
		public RecurringSchedule build() {
			Assert.isTrue(this.cron != null || this.every != null,
					() -> "Recurring schedule '" + this.name + "' needs a cron expression or an interval");
			Assert.isTrue(this.payload != null || this.payloadJson != null,
					() -> "Recurring schedule '" + this.name + "' needs a payload");
			return new RecurringSchedule(this);
		}

	}

}
