package io.github.delayqueue.autoconfigure;

import io.github.delayqueue.build.BootLine;
import io.github.delayqueue.build.redis.TestRedisExtension;
import io.github.delayqueue.payload.JacksonPayloadConverter;
import io.github.delayqueue.payload.PayloadConverter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import tools.jackson.databind.PropertyNamingStrategies;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An application's Jackson 3 {@code JsonMapper} is the one payloads go through, even beside a Jackson 2
 * {@code ObjectMapper} (Boot 4 with {@code spring-boot-jackson2}). Needs Jackson 3: not run on the Boot 3.5 line.
 */
class JsonMapperPayloadConverterTests {

	@RegisterExtension
	static final TestRedisExtension redis = TestRedisExtension.create();

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(BootLine.dataRedis(), DelayQueueAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.host=" + redis.get().host(),
				"spring.data.redis.port=" + redis.get().port(), "spring.data.redis.database=" + redis.get().database());

	@Test
	void theApplicationsJsonMapperIsUsedWithItsSettingsBeforeAnObjectMapper() {
		this.runner
			.withBean(JsonMapper.class,
					() -> JsonMapper.builder().propertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE).build())
			.withBean(com.fasterxml.jackson.databind.ObjectMapper.class)
			.run((context) -> {
				assertThat(context.getBean(PayloadConverter.class)).isInstanceOf(JacksonPayloadConverter.class);
				assertThat(PayloadConverterConfigurationsTests.json(context.getBean(PayloadConverter.class)))
					.isEqualTo("{\"order_id\":\"o-1\"}");
			});
	}

}
