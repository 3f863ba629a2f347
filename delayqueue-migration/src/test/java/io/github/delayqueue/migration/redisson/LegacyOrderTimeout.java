package io.github.delayqueue.migration.redisson;

import java.math.BigDecimal;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The payload a Redisson application offered: a non-final class with typed fields, so that {@code JsonJacksonCodec}
 * writes type information (an {@code @class} property, and type wrappers around the list, the map, the
 * {@code Long} and the {@code BigDecimal}).
 */
public class LegacyOrderTimeout {

	String orderId;

	BigDecimal amount;

	List<String> tags;

	Long attempt;

	OrderStatus status;

	Map<String, Object> extra = new LinkedHashMap<>();

	LegacyOrderTimeout(String orderId, BigDecimal amount, List<String> tags, Long attempt, OrderStatus status) {
		this.orderId = orderId;
		this.amount = amount;
		this.tags = tags;
		this.attempt = attempt;
		this.status = status;
		this.extra.put("channel", "web");
		this.extra.put("retries", 3L);
	}

	/** An order's state. */
	enum OrderStatus {

		PENDING_PAYMENT, PAID

	}

}
