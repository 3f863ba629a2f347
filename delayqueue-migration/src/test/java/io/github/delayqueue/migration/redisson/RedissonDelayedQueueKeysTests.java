package io.github.delayqueue.migration.redisson;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Redisson's key names, in one hash slot with the destination queue.
 */
class RedissonDelayedQueueKeysTests {

	@Test
	void aPlainNameBecomesTheHashTag() {
		RedissonDelayedQueueKeys keys = new RedissonDelayedQueueKeys("orders");
		assertThat(keys.timeoutSet()).isEqualTo("redisson_delay_queue_timeout:{orders}");
		assertThat(keys.delayList()).isEqualTo("redisson_delay_queue:{orders}");
		assertThat(keys.channel()).isEqualTo("redisson_delay_queue_channel:{orders}");
		assertThat(keys.destination()).isEqualTo("orders");
		assertThat(keys.ledger()).isEqualTo("delayqueue_migrated:{orders}");
	}

	@Test
	void aNameWithAHashTagKeepsIt() {
		RedissonDelayedQueueKeys keys = new RedissonDelayedQueueKeys("{shop}orders");
		assertThat(keys.timeoutSet()).isEqualTo("redisson_delay_queue_timeout:{shop}orders");
		assertThat(keys.ledger()).isEqualTo("delayqueue_migrated:{shop}orders");
	}

}
