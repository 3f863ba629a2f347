package io.github.delayqueue.autoconfigure;

import java.nio.charset.StandardCharsets;

import io.github.delayqueue.build.BootLine;
import io.github.delayqueue.build.redis.TestRedisExtension;
import io.github.delayqueue.payload.Jackson2PayloadConverter;
import io.github.delayqueue.payload.PayloadConverter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Payloads go through the Jackson the application has: its Jackson 3 {@code JsonMapper} (Boot 4), else its Jackson 2
 * {@code ObjectMapper} (Boot 3.5), else Jackson's defaults. Runs on every line ({@link JsonMapperPayloadConverterTests}
 * needs Jackson 3).
 */
class PayloadConverterConfigurationsTests {

	@RegisterExtension
	static final TestRedisExtension redis = TestRedisExtension.create();

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(BootLine.dataRedis(), DelayQueueAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.host=" + redis.get().host(),
				"spring.data.redis.port=" + redis.get().port(), "spring.data.redis.database=" + redis.get().database());

	@Test
	void theLinesOwnJacksonAutoConfigurationDecides() {
		this.runner.withConfiguration(AutoConfigurations.of(BootLine.jackson())).run((context) -> {
			assertThat(context).hasNotFailed();
			// by name: the Jackson 3 converter's class cannot be loaded on a Boot 3.5 class path
			assertThat(context.getBean(PayloadConverter.class).getClass().getName()).isEqualTo(BootLine.isBoot3()
					? Jackson2PayloadConverter.class.getName() : "io.github.delayqueue.payload.JacksonPayloadConverter");
		});
	}

	@Test
	void theApplicationsObjectMapperIsUsedWithItsSettings() {
		this.runner
			.withBean(com.fasterxml.jackson.databind.ObjectMapper.class,
					() -> new com.fasterxml.jackson.databind.ObjectMapper()
						.setPropertyNamingStrategy(com.fasterxml.jackson.databind.PropertyNamingStrategies.SNAKE_CASE))
			.run((context) -> {
				assertThat(context.getBean(PayloadConverter.class)).isInstanceOf(Jackson2PayloadConverter.class);
				assertThat(json(context.getBean(PayloadConverter.class))).isEqualTo("{\"order_id\":\"o-1\"}");
			});
	}

	@Test
	void withoutJackson3Jackson2IsUsedAndAnApplicationsOwnConverterWins() {
		this.runner.withClassLoader(new FilteredClassLoader("tools.jackson"))
			.run((context) -> assertThat(context.getBean(PayloadConverter.class))
				.isInstanceOf(Jackson2PayloadConverter.class));
		this.runner.withBean(PayloadConverter.class, OwnConverter::new)
			.withBean(com.fasterxml.jackson.databind.ObjectMapper.class)
			.run((context) -> assertThat(context).hasSingleBean(PayloadConverter.class)
				.getBean(PayloadConverter.class)
				.isInstanceOf(OwnConverter.class));
	}

	static String json(PayloadConverter converter) {
		return new String(converter.write(new Order("o-1")), StandardCharsets.UTF_8);
	}

	record Order(String orderId) {
	}

	static class OwnConverter extends Jackson2PayloadConverter {

	}

}
