package io.github.delayqueue.sample;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/**
 * Orders in the relational database ({@code orders}, see {@code schema.sql}). A status change is one conditional
 * {@code UPDATE}, so a payment and a timeout racing each other cannot both win.
 */
@Repository
public class OrderRepository {

	private final JdbcClient jdbc;

	OrderRepository(JdbcClient jdbc) {
		this.jdbc = jdbc;
	}

	void save(Order order) {
		this.jdbc.sql("insert into orders (id, customer, amount, status, created_at, updated_at) "
				+ "values (:id, :customer, :amount, :status, :createdAt, :updatedAt)")
			.param("id", order.id())
			.param("customer", order.customer())
			.param("amount", order.amount())
			.param("status", order.status().name())
			.param("createdAt", Timestamp.from(order.createdAt()))
			.param("updatedAt", Timestamp.from(order.updatedAt()))
			.update();
	}

	Optional<Order> find(String id) {
		return this.jdbc.sql("select * from orders where id = :id").param("id", id).query(OrderRepository::order)
			.optional();
	}

	List<Order> recent(int limit) {
		return this.jdbc.sql("select * from orders order by created_at desc limit :limit")
			.param("limit", limit)
			.query(OrderRepository::order)
			.list();
	}

	/**
	 * The orders waiting for payment, oldest first, a page at a time.
	 * @param afterId the last id of the previous page, or {@code ""} for the first
	 * @param limit the page size
	 * @return the page
	 */
	List<Order> pending(String afterId, int limit) {
		return this.jdbc.sql("select * from orders where status = :status and id > :after order by id limit :limit")
			.param("status", OrderStatus.PENDING_PAYMENT.name())
			.param("after", afterId)
			.param("limit", limit)
			.query(OrderRepository::order)
			.list();
	}

	/**
	 * Moves an order from one status to another, atomically.
	 * @return the outcome, with the status the order had if it did not move
	 */
	Transition transition(String id, OrderStatus from, OrderStatus to) {
		int moved = this.jdbc.sql("update orders set status = :to, updated_at = :now where id = :id and status = :from")
			.param("to", to.name())
			.param("now", Timestamp.from(Instant.now()))
			.param("id", id)
			.param("from", from.name())
			.update();
		if (moved == 1) {
			return new Transition(true, to);
		}
		return new Transition(false, find(id).map(Order::status).orElse(null));
	}

	private static Order order(ResultSet row, int rowNumber) throws SQLException {
		return new Order(row.getString("id"), row.getString("customer"), row.getBigDecimal("amount"),
				OrderStatus.valueOf(row.getString("status")), row.getTimestamp("created_at").toInstant(),
				row.getTimestamp("updated_at").toInstant());
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
