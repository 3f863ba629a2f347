package io.github.delayqueue.recurring;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.ZoneId;

import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.json.JsonMapper;

/**
 * A recurring schedule as kept in Redis: JSON of fixed fields (no type names), the payload as the JSON text it was
 * serialised to when defined.
 *
 * @param version the format, 1
 * @param topic the topic
 * @param cron the cron expression, or {@code null}
 * @param everyMillis the interval in milliseconds, or {@code null}
 * @param zone the zone id
 * @param payload the payload's JSON text
 * @param missedTicks the missed-tick policy's name
 * @param maxMissed the bound of {@link MissedTicks#FIRE_EACH}
 * @param paused whether paused
 */
record StoredDefinition(int version, String topic, @Nullable String cron, @Nullable Long everyMillis, String zone,
		String payload, String missedTicks, int maxMissed, boolean paused) {

	private static final JsonMapper JSON = JsonMapper.builder().build();

	static StoredDefinition of(RecurringSchedule schedule, byte[] payload, boolean paused) {
		Duration every = schedule.every();
		return new StoredDefinition(1, schedule.topic(), schedule.cron(), (every != null) ? every.toMillis() : null,
				schedule.zone().getId(), new String(payload, StandardCharsets.UTF_8), schedule.missedTicks().name(),
				schedule.maxMissed(), paused);
	}

	/**
	 * Reads a stored definition.
	 * @throws IllegalStateException if it is not one this version can read
	 */
	static StoredDefinition decode(String name, byte[] bytes) {
		try {
			StoredDefinition definition = JSON.readValue(bytes, StoredDefinition.class);
			if (definition.version() != 1) {
				throw new IllegalStateException(
						"Recurring schedule '" + name + "' is stored in format " + definition.version());
			}
			// every field must make a schedule
			definition.schedule(name);
			return definition;
		}
		catch (JacksonException | IllegalArgumentException | DateTimeException | NullPointerException ex) {
			throw new IllegalStateException("Recurring schedule '" + name + "' is not readable: " + ex.getMessage(),
					ex);
		}
	}

	/** Whether bytes are UTF-8 JSON text (one value), as a definition keeps its payload. */
	static boolean isJson(byte[] bytes) {
		try {
			String text = StandardCharsets.UTF_8.newDecoder()
				.onMalformedInput(CodingErrorAction.REPORT)
				.onUnmappableCharacter(CodingErrorAction.REPORT)
				.decode(ByteBuffer.wrap(bytes))
				.toString();
			JSON.readTree(text);
			return !text.isBlank();
		}
		catch (CharacterCodingException | JacksonException ex) {
			return false;
		}
	}

	byte[] encode() {
		return JSON.writeValueAsBytes(this);
	}

	StoredDefinition paused(boolean paused) {
		return new StoredDefinition(this.version, this.topic, this.cron, this.everyMillis, this.zone, this.payload,
				this.missedTicks, this.maxMissed, paused);
	}

	/** The schedule this defines, with its payload as the stored JSON text (already serialised). */
	RecurringSchedule schedule(String name) {
		RecurringSchedule.Builder builder = RecurringSchedule.builder(name, this.topic)
			.zone(ZoneId.of(this.zone))
			.payloadJson(this.payload)
			.missedTicks(MissedTicks.valueOf(this.missedTicks))
			.maxMissed(this.maxMissed);
		Long every = this.everyMillis;
		if (every != null) {
			builder.every(Duration.ofMillis(every));
		}
		else {
			builder.cron(String.valueOf(this.cron));
		}
		return builder.build();
	}

}
