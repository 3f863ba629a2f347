package io.github.delayqueue.test.autoconfigure;

import io.github.delayqueue.DelayedQueueAdmin;
import io.github.delayqueue.TopicPartitioning;
import io.github.delayqueue.autoconfigure.DelayQueueAutoConfiguration;
import io.github.delayqueue.config.DelayedListenerContainerFactory;
import io.github.delayqueue.payload.PayloadConverter;
import io.github.delayqueue.redis.RedisMessageStore;
import io.github.delayqueue.test.DelayQueueTester;
import io.github.delayqueue.test.ListenerRecorder;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Test auto-configuration of a {@link DelayQueueTester} on the application's queue, and of the
 * {@link ListenerRecorder} that every {@link DelayedListenerContainerFactory} bean's containers report to. Imported by
 * {@link AutoConfigureDelayQueueTester @AutoConfigureDelayQueueTester}.
 *
 * @since 1.0.0
 */
@AutoConfiguration(after = DelayQueueAutoConfiguration.class)
@ConditionalOnBean(RedisMessageStore.class)
public final class DelayQueueTesterAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	ListenerRecorder delayQueueListenerRecorder() {
		return new ListenerRecorder();
	}

	@Bean
	static BeanPostProcessor delayQueueRecordingContainerFactories(ObjectProvider<ListenerRecorder> recorder) {
		return new RecordingContainerFactories(recorder);
	}

	@Bean
	@ConditionalOnMissingBean
	DelayQueueTester delayQueueTester(RedisMessageStore store, PayloadConverter converter,
			TopicPartitioning partitioning, DelayedQueueAdmin admin, RedisConnectionFactory connectionFactory,
			ListenerRecorder recorder) {
		return new DelayQueueTester(store, converter, partitioning, admin, connectionFactory, recorder);
	}

	/** Makes every container factory bean's containers record what their listeners receive. */
	static final class RecordingContainerFactories implements BeanPostProcessor {

		private final ObjectProvider<ListenerRecorder> recorder;

		RecordingContainerFactories(ObjectProvider<ListenerRecorder> recorder) {
			this.recorder = recorder;
		}

		@Override
		public Object postProcessAfterInitialization(Object bean, String beanName) {
			if (bean instanceof DelayedListenerContainerFactory factory) {
				ListenerRecorder recorder = this.recorder.getIfUnique();
				if (recorder != null) {
					return recorder.recording(factory);
				}
			}
			return bean;
		}

	}

}
