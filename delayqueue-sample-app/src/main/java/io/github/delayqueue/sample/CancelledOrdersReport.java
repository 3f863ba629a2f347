package io.github.delayqueue.sample;

import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;

import io.github.delayqueue.DeliveredMessage;
import io.github.delayqueue.annotation.DelayedListener;
import io.github.delayqueue.recurring.RecurringSchedules;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;

/**
 * A recurring job: every minute (the {@code cancelled-orders-report} schedule in {@code application.yml}), once
 * across all instances, a report of the orders cancelled in the minute before the tick.
 */
@Component
class CancelledOrdersReport {

	static final String TOPIC = "order-report";

	private static final Logger logger = LoggerFactory.getLogger(CancelledOrdersReport.class);

	private final JdbcClient jdbc;

	CancelledOrdersReport(JdbcClient jdbc) {
		this.jdbc = jdbc;
	}

	/**
	 * Reports the orders cancelled in the period before the tick.
	 * @param request the report's period
	 * @param message the tick's message: its due time is the tick
	 */
	@DelayedListener(topic = TOPIC)
	void report(ReportRequest request, DeliveredMessage message) {
		Instant tick = message.dueAt();
		Instant from = tick.minus(request.period());
		int cancelled = this.jdbc
			.sql("select count(*) from orders where status = 'CANCELLED' and updated_at > :from and updated_at <= :to")
			.param("from", Timestamp.from(from))
			.param("to", Timestamp.from(tick))
			.query(Integer.class)
			.single();
		logger.info("Report for {} to {} (schedule '{}'): {} order(s) cancelled unpaid", from, tick,
				message.headers().get(RecurringSchedules.SCHEDULE_HEADER), cancelled);
	}

	/**
	 * What a report covers.
	 * @param period how far back from the tick
	 */
	record ReportRequest(Duration period) {
	}

}
