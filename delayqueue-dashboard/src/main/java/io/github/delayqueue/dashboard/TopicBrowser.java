package io.github.delayqueue.dashboard;

import java.util.List;
import java.util.Optional;

import io.github.delayqueue.DelayedQueueAdmin;
import io.github.delayqueue.MessagePage;
import io.github.delayqueue.TopGroups;
import io.github.delayqueue.WaitingQuery;
import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * The dashboard's reads of a topic on demand, each bounded: one message by id, one page of waiting messages (by due
 * time, with a cursor), one page of dead letters, the groups with the most messages waiting.
 *
 * @since 1.0.0
 */
public class TopicBrowser {

	/** The largest page the dashboard lists. */
	public static final int MAX_PAGE = 100;

	/** How many characters of a listed message's payload are shown. */
	static final int LISTED_PAYLOAD = 500;

	/** How many characters of a looked-up message's payload are shown. */
	static final int FOUND_PAYLOAD = 64 * 1024;

	private final DelayedQueueAdmin admin;

	/**
	 * Creates a browser of the admin's topics.
	 * @param admin where messages are read
	 */
	public TopicBrowser(DelayedQueueAdmin admin) {
		Assert.notNull(admin, "DelayedQueueAdmin must not be null");
		this.admin = admin;
	}

	/**
	 * Finds a message by id, in whatever state.
	 * @param topic the topic
	 * @param id the message id
	 * @return the message, or empty if the topic holds none with that id
	 */
	public Optional<MessageView> lookup(String topic, String id) {
		return this.admin.lookup(topic, id).map((info) -> MessageView.of(info, FOUND_PAYLOAD));
	}

	/**
	 * Lists a page of waiting messages by due time.
	 * @param topic the topic
	 * @param limit the page size, 1 to {@value #MAX_PAGE}
	 * @param cursor the previous page's cursor, or {@code null} for the first page
	 * @return the page
	 */
	public WaitingPage waiting(String topic, int limit, @Nullable String cursor) {
		checkLimit(limit);
		WaitingQuery query = WaitingQuery.first(limit);
		MessagePage page = this.admin.listWaiting(topic, (cursor != null) ? query.after(cursor) : query);
		return new WaitingPage(topic,
				page.messages().stream().map((info) -> MessageView.of(info, LISTED_PAYLOAD)).toList(),
				page.nextCursor());
	}

	/**
	 * Lists a page of dead letters, oldest first.
	 * @param topic the topic
	 * @param offset how many to skip
	 * @param limit the page size, 1 to {@value #MAX_PAGE}
	 * @return the page, with how many dead letters the topic holds
	 */
	public DeadLetterPage deadLetters(String topic, int offset, int limit) {
		checkLimit(limit);
		Assert.isTrue(offset >= 0, () -> "Offset must not be negative, but was " + offset);
		List<MessageView> letters = this.admin.deadLetters(topic, offset, limit)
			.stream()
			.map((letter) -> MessageView.of(letter, LISTED_PAYLOAD))
			.toList();
		return new DeadLetterPage(topic, this.admin.stats(topic).dead(), offset, letters);
	}

	/**
	 * Lists the groups of a topic with the most messages waiting, read with bounded work (see
	 * {@link DelayedQueueAdmin#topGroups(String, int)}).
	 * @param topic the topic
	 * @param count how many groups, 1 to {@value #MAX_PAGE}
	 * @return the groups, the most waiting first
	 */
	public TopGroups groups(String topic, int count) {
		return this.admin.topGroups(topic, count);
	}

	private static void checkLimit(int limit) {
		Assert.isTrue(limit >= 1 && limit <= MAX_PAGE,
				() -> "Limit must be between 1 and " + MAX_PAGE + ", but was " + limit);
	}

	/**
	 * A page of waiting messages.
	 *
	 * @param topic the topic
	 * @param messages the messages, by due time
	 * @param nextCursor the next page's cursor, or {@code null} if this is the last
	 */
	public record WaitingPage(String topic, List<MessageView> messages, @Nullable String nextCursor) {
	}

	/**
	 * A page of dead letters.
	 *
	 * @param topic the topic
	 * @param total how many dead letters the topic holds
	 * @param offset how many come before this page
	 * @param deadLetters the page, oldest first
	 */
	public record DeadLetterPage(String topic, long total, int offset, List<MessageView> deadLetters) {
	}

}
