package io.github.delayqueue.wakeup;

import java.time.Duration;
import java.util.List;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.github.delayqueue.RedisFixture;
import io.github.delayqueue.support.RedisDurabilityCheck;
import io.github.delayqueue.build.redis.TestRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The start-up check warns about Redis settings that lose accepted messages: eviction, and no append-only file; the
 * wake-up timer itself no longer does.
 */
class StartupWarningsTests {

	private final ListAppender<ILoggingEvent> logged = new ListAppender<>();

	private final Logger logger = (Logger) LoggerFactory.getLogger(RedisDurabilityCheck.class);

	private TestRedis redis;

	private RedisFixture fixture;

	@BeforeEach
	void setUp() {
		// a server of its own: the test changes its configuration
		this.redis = TestRedis.builder().allowExternal(false).allowContainer(false).build();
		this.redis.start();
		this.fixture = new RedisFixture(this.redis);
		this.logged.start();
		this.logger.addAppender(this.logged);
	}

	@AfterEach
	void tearDown() {
		this.logger.detachAppender(this.logged);
		this.fixture.close();
		this.redis.close();
	}

	@Test
	void withoutAnAppendOnlyFileItWarnsThatARestartLosesMessages() {
		this.redis.call("CONFIG", "SET", "appendonly", "no");
		this.redis.call("CONFIG", "SET", "maxmemory-policy", "noeviction");
		startAndStopAScheduler();
		assertThat(warnings()).singleElement().asString().contains("appendonly is 'no'");
	}

	@Test
	void anEvictionPolicyIsWarnedAbout() {
		this.redis.call("CONFIG", "SET", "appendonly", "yes");
		this.redis.call("CONFIG", "SET", "maxmemory-policy", "allkeys-lru");
		startAndStopAScheduler();
		assertThat(warnings()).singleElement().asString().contains("maxmemory-policy is 'allkeys-lru'");
	}

	private void startAndStopAScheduler() {
		LettuceConnectionFactory factory = this.fixture.connectionFactory();
		new RedisDurabilityCheck(factory).afterSingletonsInstantiated();
		WakeUpTimer timer = new WakeUpTimer(factory, Duration.ofMillis(5), Duration.ofSeconds(1));
		timer.start();
		timer.stop();
	}

	private List<String> warnings() {
		return this.logged.list.stream()
			.filter((event) -> event.getLevel() == Level.WARN)
			.map(ILoggingEvent::getFormattedMessage)
			.toList();
	}

}
