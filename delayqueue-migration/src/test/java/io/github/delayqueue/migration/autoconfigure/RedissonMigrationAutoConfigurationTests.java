package io.github.delayqueue.migration.autoconfigure;

import io.github.delayqueue.migration.redisson.ApplicationCodec;
import io.github.delayqueue.migration.redisson.MigrationRequest;
import io.github.delayqueue.migration.redisson.RedissonCodec;
import org.junit.jupiter.api.Test;
import org.redisson.codec.Kryo5Codec;
import org.redisson.codec.SerializationCodec;

import org.springframework.boot.test.context.FilteredClassLoader;

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
		assertThat(RedissonMigrationRunner.request(properties, null, getClass().getClassLoader())).isEqualTo(
				new MigrationRequest("orders", "order-timeout", RedissonCodec.JSON_JACKSON_CODEC, true, 100));
	}

	@Test
	void aMissingOrUnsupportedSettingIsNamed() {
		RedissonMigrationProperties properties = new RedissonMigrationProperties();
		properties.setQueue("orders");
		properties.setTopic("order-timeout");
		assertThatIllegalStateException().isThrownBy(() -> RedissonMigrationRunner.request(properties, null, getClass().getClassLoader()))
			.withMessageStartingWith("Set delayqueue.migration.redisson.codec");
		properties.setCodec("SerializationCodec");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> RedissonMigrationRunner.request(properties, null, new FilteredClassLoader("org.redisson")))
			.withMessageStartingWith("Redisson codec 'SerializationCodec' is not supported");
		properties.setCodec("org.example.NoSuchCodec");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> RedissonMigrationRunner.request(properties, null, getClass().getClassLoader()))
			.withMessage("Redisson codec class 'org.example.NoSuchCodec' is not on the class path");
		properties.setCodec("java.lang.String");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> RedissonMigrationRunner.request(properties, null, getClass().getClassLoader()))
			.withMessage("'java.lang.String' is not a Redisson codec (an org.redisson.client.codec.Codec)");
	}

	@Test
	void withRedissonOnTheClassPathAnyRedissonCodecIsTheApplicationsOwn() {
		RedissonMigrationProperties properties = new RedissonMigrationProperties();
		properties.setQueue("orders");
		properties.setTopic("order-timeout");
		properties.setCodec("Kryo5Codec");
		MigrationRequest request = RedissonMigrationRunner.request(properties, null, getClass().getClassLoader());
		assertThat(request.codec()).isInstanceOfSatisfying(ApplicationCodec.class,
				(codec) -> assertThat(codec.codec()).isInstanceOf(Kryo5Codec.class));
		properties.setCodec("org.redisson.codec.SerializationCodec");
		assertThat(RedissonMigrationRunner.request(properties, null, getClass().getClassLoader()).codec())
			.isInstanceOfSatisfying(ApplicationCodec.class,
					(codec) -> assertThat(codec.codec()).isInstanceOf(SerializationCodec.class));
	}

	@Test
	void withoutTheCodecPropertyTheApplicationsValueDecoderReadsTheValues() {
		RedissonMigrationProperties properties = new RedissonMigrationProperties();
		properties.setQueue("orders");
		properties.setTopic("order-timeout");
		ApplicationCodec kryo = ApplicationCodec.of(new Kryo5Codec());
		assertThat(RedissonMigrationRunner.request(properties, kryo, getClass().getClassLoader()).codec())
			.isSameAs(kryo);
		properties.setCodec("StringCodec");
		assertThat(RedissonMigrationRunner.request(properties, kryo, getClass().getClassLoader()).codec())
			.as("the property wins").isSameAs(RedissonCodec.STRING_CODEC);
	}

}
