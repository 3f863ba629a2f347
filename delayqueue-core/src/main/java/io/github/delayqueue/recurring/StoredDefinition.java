package io.github.delayqueue.recurring;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.ZoneId;

import java.util.LinkedHashMap;
import java.util.Map;

import io.github.delayqueue.payload.JsonValues;
import org.jspecify.annotations.Nullable;

/**
 * A recurring schedule as kept in Redis: a JSON object of fixed fields (no type names), the payload as the JSON text
 * it was serialised to when defined. Read and written field by field, so that Jackson 2 and Jackson 3 store the same
 * thing and each reads what the other wrote.
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
			StoredDefinition definition = fromFields(JsonValues.readObject(bytes));
			if (definition.version() != 1) {
				throw new IllegalStateException(
						"Recurring schedule '" + name + "' is stored in format " + definition.version());
			}
			// every field must make a schedule
			definition.schedule(name);
			return definition;
		}
		catch (IllegalArgumentException | DateTimeException | NullPointerException | ClassCastException ex) {
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
			return !text.isBlank() && JsonValues.isValue(text);
		}
		catch (CharacterCodingException ex) {
			return false;
		}
	}

	byte[] encode() {
		return JsonValues.write(fields());
	}

	/** Its fields, by the names that every version reads. */
	Map<String, @Nullable Object> fields() {
		Map<String, @Nullable Object> fields = new LinkedHashMap<>();
		fields.put("version", this.version);
		fields.put("topic", this.topic);
		fields.put("cron", this.cron);
		fields.put("everyMillis", this.everyMillis);
		fields.put("zone", this.zone);
		fields.put("payload", this.payload);
		fields.put("missedTicks", this.missedTicks);
		fields.put("maxMissed", this.maxMissed);
		fields.put("paused", this.paused);
		return fields;
	}

	static StoredDefinition fromFields(Map<String, Object> fields) {
		Number everyMillis = (Number) fields.get("everyMillis");
		return new StoredDefinition(number(fields, "version").intValue(), text(fields, "topic"),
				(String) fields.get("cron"), (everyMillis != null) ? everyMillis.longValue() : null,
				text(fields, "zone"), text(fields, "payload"), text(fields, "missedTicks"),
				number(fields, "maxMissed").intValue(), Boolean.TRUE.equals(fields.get("paused")));
	}

	private static Number number(Map<String, Object> fields, String name) {
		Object value = fields.get(name);
		if (!(value instanceof Number number)) {
			throw new IllegalArgumentException("'" + name + "' is not a number");
		}
		return number;
	}

	private static String text(Map<String, Object> fields, String name) {
		Object value = fields.get(name);
		if (!(value instanceof String text)) {
			throw new IllegalArgumentException("'" + name + "' is not a string");
		}
		return text;
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
