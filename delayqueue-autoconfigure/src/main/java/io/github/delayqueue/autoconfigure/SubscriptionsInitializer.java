package io.github.delayqueue.autoconfigure;

import java.util.List;
import java.util.Map;

import io.github.delayqueue.DelayedQueueAdmin;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.dao.DataAccessException;

/**
 * Declares in Redis the subscriptions that {@code delayqueue.topics.<topic>.subscriptions} lists, once the
 * application's beans exist and before its listeners start, so that each receives the topic's messages that fall due
 * from then on even where none of its listeners runs. A declaration that fails (Redis did not answer) is logged, not
 * fatal: the listeners of a subscription declare it again when they start.
 */
class SubscriptionsInitializer implements SmartInitializingSingleton {

	private static final Logger logger = LoggerFactory.getLogger(SubscriptionsInitializer.class);

	private final DelayedQueueAdmin admin;

	private final Map<String, List<String>> subscriptions;

	SubscriptionsInitializer(DelayedQueueAdmin admin, Map<String, List<String>> subscriptions) {
		this.admin = admin;
		this.subscriptions = Map.copyOf(subscriptions);
	}

	@Override
	public void afterSingletonsInstantiated() {
		this.subscriptions.forEach((topic, names) -> {
			try {
				for (String name : names) {
					if (this.admin.declareSubscription(topic, name)) {
						logger.info("Topic '{}': subscription '{}' declared; its messages that fall due from now on "
								+ "fan out to it", topic, name);
					}
				}
			}
			catch (DataAccessException ex) {
				logger.error("Topic '{}': the subscriptions {} that the properties declare could not be declared "
						+ "(Redis did not answer); a message that falls due before they are (restart, or their "
						+ "listeners' start) does not reach them", topic, names, ex);
			}
		});
	}

}
