package io.github.delayqueue;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * Which page of a topic's waiting messages {@link TopicOperations#listWaiting(String, WaitingQuery)} lists: up to a
 * page size, by due time then id, optionally between two due times, and after the cursor of the previous page.
 *
 * <pre class="code">
 * MessagePage page = admin.listWaiting("order-timeout", WaitingQuery.first(100));
 * while (page.nextCursor() != null) {
 *     page = admin.listWaiting("order-timeout", WaitingQuery.first(100).after(page.nextCursor()));
 * }
 * </pre>
 *
 * @param limit the page size, 1 to {@value #MAX_LIMIT}
 * @param from the earliest due time listed, or {@code null}
 * @param to the latest due time listed, or {@code null}
 * @param cursor the previous page's {@link MessagePage#nextCursor()}, or {@code null} for the first page
 * @since 1.0.0
 */
public record WaitingQuery(int limit, @Nullable Instant from, @Nullable Instant to, @Nullable String cursor) {

	/** The largest page. */
	public static final int MAX_LIMIT = 1000;

	/**
	 * Checks the query.
	 * @param limit the page size
	 * @param from the earliest due time, or {@code null}
	 * @param to the latest due time, or {@code null}
	 * @param cursor the cursor, or {@code null}
	 */
	public WaitingQuery {
		Assert.isTrue(limit >= 1 && limit <= MAX_LIMIT,
				() -> "Limit must be between 1 and " + MAX_LIMIT + ", but was " + limit);
		Assert.isTrue(from == null || to == null || !to.isBefore(from),
				() -> "The latest due time " + to + " is before the earliest " + from);
		Assert.isTrue(cursor == null || !cursor.isBlank(), "Cursor must not be blank");
	}

	/**
	 * The first page of waiting messages.
	 * @param limit the page size, 1 to {@value #MAX_LIMIT}
	 * @return the query
	 */
	public static WaitingQuery first(int limit) {
		return new WaitingQuery(limit, null, null, null);
	}

	/**
	 * This query listing only messages due at or after a time.
	 * @param from the earliest due time
	 * @return a new query
	 */
	public WaitingQuery from(Instant from) {
		Assert.notNull(from, "From must not be null");
		return new WaitingQuery(this.limit, from, this.to, this.cursor);
	}

	/**
	 * This query listing only messages due at or before a time.
	 * @param to the latest due time
	 * @return a new query
	 */
	public WaitingQuery to(Instant to) {
		Assert.notNull(to, "To must not be null");
		return new WaitingQuery(this.limit, this.from, to, this.cursor);
	}

	/**
	 * This query listing the page after a previous one.
	 * @param cursor the previous page's {@link MessagePage#nextCursor()}
	 * @return a new query
	 */
	public WaitingQuery after(String cursor) {
		Assert.hasText(cursor, "Cursor must not be blank");
		return new WaitingQuery(this.limit, this.from, this.to, cursor);
	}

}
