package io.github.delayqueue.migration.autoconfigure;

import io.github.delayqueue.migration.redisson.MigrationRequest;
import io.github.delayqueue.migration.redisson.RedissonCodec;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * The runner reads its request from the properties, naming what is missing or unsupported (that it exists only
 * when enabled, and runs, is shown against a real Redis in {@code RedissonDelayedQueueMigrationTests}).
 */
class RedissonMigrationAutoConfigurationTests {

	@Test
	void theRequestComesFromTheProperties() {
		RedissonMigrationProperties properties = new RedissonMigrationProperties();
		properties.setQueue("orders");
		properties.setTopic("order-timeout");
		properties.setCodec("org.redisson.codec.JsonJacksonCodec");
		properties.setBatchSize(100);
		properties.setRemoveMigrated(true);
		assertThat(RedissonMigrationRunner.request(properties)).isEqualTo(
				new MigrationRequest("orders", "order-timeout", RedissonCodec.JSON_JACKSON_CODEC, true, 100));
	}

	@Test
	void aMissingOrUnsupportedSettingIsNamed() {
		RedissonMigrationProperties properties = new RedissonMigrationProperties();
		properties.setQueue("orders");
		properties.setTopic("order-timeout");
		assertThatIllegalStateException().isThrownBy(() -> RedissonMigrationRunner.request(properties))
			.withMessageStartingWith("Set delayqueue.migration.redisson.codec");
		properties.setCodec("SerializationCodec");
		assertThatIllegalArgumentException().isThrownBy(() -> RedissonMigrationRunner.request(properties))
			.withMessageStartingWith("Redisson codec 'SerializationCodec' is not supported");
	}

}
