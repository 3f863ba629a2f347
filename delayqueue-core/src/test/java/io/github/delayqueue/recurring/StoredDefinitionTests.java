package io.github.delayqueue.recurring;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Recurring definitions as kept in Redis: what Jackson 2 (Spring Boot 3.5) writes, the Jackson this run has (3 on
 * Spring Boot 4) reads, and the other way round, so that instances of both lines share a topic's schedules during a
 * rolling upgrade.
 */
class StoredDefinitionTests {

	private final ObjectMapper jackson2 = new ObjectMapper();

	@Test
	void jackson2ReadsTheDefinitionsThisLineWroteAndTheOtherWayRound() throws Exception {
		StoredDefinition cron = new StoredDefinition(1, "reports", "0 0 * * * *", null, "Europe/Berlin",
				"{\"kind\":\"hourly\",\"note\":\"grüße\"}", "FIRE_ONCE", 10, false);
		StoredDefinition every = new StoredDefinition(1, "pings", null, 60_000L, "UTC", "\"ping\"", "FIRE_EACH", 3,
				true);
		for (StoredDefinition definition : List.of(cron, every)) {
			Map<String, Object> readByJackson2 = this.jackson2.readValue(definition.encode(), new TypeReference<>() {
			});
			assertThat(StoredDefinition.fromFields(readByJackson2)).isEqualTo(definition);
			byte[] writtenByJackson2 = this.jackson2.writeValueAsBytes(definition.fields());
			assertThat(StoredDefinition.decode("any", writtenByJackson2)).isEqualTo(definition);
		}
	}

	@Test
	void aDefinitionAsTheEarlierReleaseWroteItIsRead() {
		// Jackson 3's record serialisation, properties sorted by name, as 0.3 snapshots stored them
		byte[] stored = ("{\"cron\":null,\"everyMillis\":60000,\"maxMissed\":10,\"missedTicks\":\"FIRE_ONCE\","
				+ "\"paused\":false,\"payload\":\"{\\\"a\\\":1}\",\"topic\":\"pings\",\"version\":1,\"zone\":\"UTC\"}")
			.getBytes(StandardCharsets.UTF_8);
		assertThat(StoredDefinition.decode("ping", stored))
			.isEqualTo(new StoredDefinition(1, "pings", null, 60_000L, "UTC", "{\"a\":1}", "FIRE_ONCE", 10, false));
	}

	@Test
	void aDefinitionThatIsNotOneIsNotReadableAndSaysWhy() {
		assertThatIllegalStateException()
			.isThrownBy(() -> StoredDefinition.decode("ping", "[1]".getBytes(StandardCharsets.UTF_8)))
			.withMessageContaining("'ping' is not readable");
		assertThatIllegalStateException()
			.isThrownBy(() -> StoredDefinition.decode("ping",
					"{\"version\":1,\"topic\":7}".getBytes(StandardCharsets.UTF_8)))
			.withMessageContaining("'topic' is not a string");
		assertThatIllegalStateException()
			.isThrownBy(() -> StoredDefinition.decode("ping", ("{\"version\":2,\"topic\":\"t\",\"zone\":\"UTC\","
					+ "\"payload\":\"1\",\"missedTicks\":\"FIRE_ONCE\",\"maxMissed\":1}")
				.getBytes(StandardCharsets.UTF_8)))
			.withMessageContaining("stored in format 2");
	}

}
