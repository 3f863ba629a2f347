package io.github.delayqueue.sample;

import java.math.BigDecimal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.stereotype.Repository;

/**
 * Orders in Redis: a hash per order ({@code sample:order:<id>}) and a sorted set of ids by creation time for
 * listing. Status changes are one atomic script, so a payment and a timeout racing each other cannot both win.
 */
@Repository
public class OrderRepository {

	private static final String RECENT = "sample:orders:recent";

	private static final RedisScript<String> TRANSITION = RedisScript.of("""
			local status = redis.call('HGET', KEYS[1], 'status')
			if not status then return '' end
			if status == ARGV[1] then
			  redis.call('HSET', KEYS[1], 'status', ARGV[2], 'updatedAt', ARGV[3])
			  return 'OK'
			end
			return status
			""", String.class);

	private final StringRedisTemplate redis;

	OrderRepository(StringRedisTemplate redis) {
		this.redis = redis;
	}

	void save(Order order) {
		this.redis.opsForHash()
			.putAll(key(order.id()),
					Map.of("id", order.id(), "customer", order.customer(), "amount", order.amount().toPlainString(),
							"status", order.status().name(), "createdAt", order.createdAt().toString(), "updatedAt",
							order.updatedAt().toString()));
		this.redis.opsForZSet().add(RECENT, order.id(), order.createdAt().toEpochMilli());
	}

	void delete(String id) {
		this.redis.delete(key(id));
		this.redis.opsForZSet().remove(RECENT, id);
	}

	Optional<Order> find(String id) {
		Map<Object, Object> fields = this.redis.opsForHash().entries(key(id));
		if (fields.isEmpty()) {
			return Optional.empty();
		}
		return Optional.of(new Order((String) fields.get("id"), (String) fields.get("customer"),
				new BigDecimal((String) fields.get("amount")), OrderStatus.valueOf((String) fields.get("status")),
				Instant.parse((String) fields.get("createdAt")), Instant.parse((String) fields.get("updatedAt"))));
	}

	List<Order> recent(int limit) {
		List<Order> orders = new ArrayList<>();
		var ids = this.redis.opsForZSet().reverseRange(RECENT, 0, limit - 1);
		if (ids != null) {
			ids.forEach((id) -> find(id).ifPresent(orders::add));
		}
		return orders;
	}

	/**
	 * Moves an order from one status to another, atomically.
	 * @return the outcome, with the status the order had if it did not move
	 */
	Transition transition(String id, OrderStatus from, OrderStatus to) {
		String result = this.redis.execute(TRANSITION, List.of(key(id)), from.name(), to.name(),
				Instant.now().toString());
		if (result == null || result.isEmpty()) {
			return new Transition(false, null);
		}
		if ("OK".equals(result)) {
			return new Transition(true, to);
		}
		return new Transition(false, OrderStatus.valueOf(result));
	}

	private static String key(String id) {
		return "sample:order:" + id;
	}

	/**
	 * The outcome of a status change.
	 *
	 * @param moved whether the order moved
	 * @param status the status it has now, or {@code null} if there is no such order
	 */
	record Transition(boolean moved, OrderStatus status) {
	}

}
