package io.github.delayqueue;

import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * A page of waiting messages, by due time then id.
 *
 * @param messages the messages
 * @param nextCursor where the next page starts (pass it to {@link WaitingQuery#after(String)}), or {@code null} if
 * this page is the last
 * @since 1.0.0
 */
public record MessagePage(List<MessageInfo> messages, @Nullable String nextCursor) {

	/**
	 * Creates a page.
	 * @param messages the messages
	 * @param nextCursor the next page's cursor, or {@code null}
	 */
	public MessagePage {
		messages = List.copyOf(messages);
	}

}
