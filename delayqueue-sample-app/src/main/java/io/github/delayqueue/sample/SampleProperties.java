package io.github.delayqueue.sample;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Settings of the sample ({@code sample.*}).
 *
 * @param orders order settings
 * @param embeddedRedis embedded Redis settings
 */
@ConfigurationProperties("sample")
public record SampleProperties(@DefaultValue Orders orders, @DefaultValue EmbeddedRedis embeddedRedis) {

	/**
	 * Order settings.
	 *
	 * @param paymentTimeout how long an order may stay unpaid before it is cancelled
	 */
	public record Orders(@DefaultValue("30m") Duration paymentTimeout) {
	}

	/**
	 * Embedded Redis settings.
	 *
	 * @param enabled whether to start a Redis server when nothing answers at the configured loopback address
	 */
	public record EmbeddedRedis(@DefaultValue("true") boolean enabled) {
	}

}
