package io.github.delayqueue.autoconfigure;

import io.github.delayqueue.payload.Jackson2PayloadConverter;
import io.github.delayqueue.payload.JacksonPayloadConverter;
import io.github.delayqueue.payload.PayloadConverter;

import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The payload converter, through the Jackson the application has, imported in this order: the application's Jackson 3
 * {@code JsonMapper}, else its Jackson 2 {@code ObjectMapper}, else a mapper of Jackson's defaults (Jackson 3 where it
 * is on the class path). Each converter reads what the other writes, so instances on either line share topics.
 */
final class PayloadConverterConfigurations {

	private PayloadConverterConfigurations() {
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(name = "tools.jackson.databind.json.JsonMapper")
	@ConditionalOnBean(type = "tools.jackson.databind.json.JsonMapper")
	static class ApplicationJsonMapper {

		@Bean
		@ConditionalOnMissingBean
		PayloadConverter delayQueuePayloadConverter(tools.jackson.databind.json.JsonMapper jsonMapper) {
			return new JacksonPayloadConverter(jsonMapper);
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(name = "com.fasterxml.jackson.databind.ObjectMapper")
	@ConditionalOnBean(type = "com.fasterxml.jackson.databind.ObjectMapper")
	static class ApplicationObjectMapper {

		@Bean
		@ConditionalOnMissingBean
		PayloadConverter delayQueuePayloadConverter(com.fasterxml.jackson.databind.ObjectMapper objectMapper) {
			return new Jackson2PayloadConverter(objectMapper);
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(name = "tools.jackson.databind.json.JsonMapper")
	static class DefaultJsonMapper {

		@Bean
		@ConditionalOnMissingBean
		PayloadConverter delayQueuePayloadConverter() {
			return new JacksonPayloadConverter();
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(name = "com.fasterxml.jackson.databind.ObjectMapper")
	static class DefaultObjectMapper {

		@Bean
		@ConditionalOnMissingBean
		PayloadConverter delayQueuePayloadConverter() {
			return new Jackson2PayloadConverter();
		}

	}

}
