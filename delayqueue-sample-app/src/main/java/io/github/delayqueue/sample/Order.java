package io.github.delayqueue.sample;

import java.math.BigDecimal;
import java.time.Instant;

/**
 * An order as the API shows it.
 *
 * @param id the order id
 * @param customer who ordered
 * @param amount how much is to be paid
 * @param status where the order stands
 * @param createdAt when it was created
 * @param updatedAt when its status last changed
 */
public record Order(String id, String customer, BigDecimal amount, OrderStatus status, Instant createdAt,
		Instant updatedAt) {
}
