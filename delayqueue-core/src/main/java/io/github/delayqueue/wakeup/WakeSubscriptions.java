package io.github.delayqueue.wakeup;

import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.core.task.SimpleAsyncTaskExecutor;
import org.springframework.data.redis.connection.Message;
import org.springframework.data.redis.connection.MessageListener;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.SubscriptionListener;
import org.springframework.data.redis.listener.ChannelTopic;
import org.springframework.data.redis.listener.RedisMessageListenerContainer;

/**
 * The subscription to the topics' wake channels, from start to stop: a message on a channel arms its triggers for the
 * delay it carries (a new head's), and every (re)subscription to a channel fires its triggers at once, because pub/sub
 * drops what is published while disconnected. The listener only arms and fires: nothing runs on the subscription's
 * thread.
 */
final class WakeSubscriptions {

	/** The category the wake-up timer always logged in. */
	private static final Logger logger = LoggerFactory.getLogger("io.github.delayqueue.wakeup.WakeUpTimer");

	private final RedisConnectionFactory connectionFactory;

	/** Channel, then owner (a topic's or a subscription's name), to trigger. */
	private final Map<String, ? extends Map<String, ? extends TopicTrigger>> triggersByChannel;

	private final WakeListener wakeListener = new WakeListener();

	private @Nullable RedisMessageListenerContainer container;

	/**
	 * Creates the subscription.
	 * @param connectionFactory the Redis connection factory for the wake-channel subscription
	 * @param triggersByChannel the triggers by channel and owner, as registered (read, never changed here)
	 */
	WakeSubscriptions(RedisConnectionFactory connectionFactory,
			Map<String, ? extends Map<String, ? extends TopicTrigger>> triggersByChannel) {
		this.connectionFactory = connectionFactory;
		this.triggersByChannel = triggersByChannel;
	}

	/** Subscribes to the channels, on a subscription thread of its own. */
	void start(Collection<String> channels) {
		RedisMessageListenerContainer container = new RedisMessageListenerContainer();
		container.setConnectionFactory(this.connectionFactory);
		container.setTaskExecutor(Runnable::run);
		// a blocking client (Jedis) holds a thread for its subscription: its own, never the caller's
		SimpleAsyncTaskExecutor subscriptionThreads = new SimpleAsyncTaskExecutor("delayqueue-wake-");
		subscriptionThreads.setDaemon(true);
		container.setSubscriptionExecutor(subscriptionThreads);
		container.setErrorHandler((ex) -> logger.warn("Wake channel listener failed", ex));
		container.setBeanName("delayqueueWakeSubscriptions");
		container.afterPropertiesSet();
		channels.forEach((channel) -> container.addMessageListener(this.wakeListener, new ChannelTopic(channel)));
		container.start();
		this.container = container;
	}

	/** Subscribes to one more channel, if started. */
	void add(String channel) {
		if (this.container != null) {
			this.container.addMessageListener(this.wakeListener, new ChannelTopic(channel));
		}
	}

	/** Unsubscribes from a channel, if started. */
	void remove(String channel) {
		if (this.container != null) {
			this.container.removeMessageListener(this.wakeListener, new ChannelTopic(channel));
		}
	}

	void stop() {
		if (this.container != null) {
			try {
				this.container.stop();
				this.container.destroy();
			}
			catch (Exception ex) {
				logger.debug("Closing the wake channel subscriptions failed", ex);
			}
			this.container = null;
		}
	}

	/** Whether the subscription is established now. */
	boolean isListening() {
		RedisMessageListenerContainer current = this.container;
		return current != null && current.isListening();
	}

	private final class WakeListener implements MessageListener, SubscriptionListener {

		@Override
		public void onMessage(Message message, byte @Nullable [] pattern) {
			Map<String, ? extends TopicTrigger> owners = WakeSubscriptions.this.triggersByChannel
				.get(new String(message.getChannel(), StandardCharsets.UTF_8));
			if (owners == null) {
				return;
			}
			long delay;
			try {
				delay = Long.parseLong(new String(message.getBody(), StandardCharsets.US_ASCII).trim());
			}
			catch (NumberFormatException ex) {
				delay = 0;
			}
			for (TopicTrigger trigger : owners.values()) {
				trigger.armIn(delay, TimeUnit.MILLISECONDS);
			}
		}

		@Override
		public void onChannelSubscribed(byte[] channel, long count) {
			Map<String, ? extends TopicTrigger> owners = WakeSubscriptions.this.triggersByChannel
				.get(new String(channel, StandardCharsets.UTF_8));
			if (owners != null) {
				owners.values().forEach(TopicTrigger::fire);
			}
		}

	}

}
