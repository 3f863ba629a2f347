package io.github.delayqueue.dashboard;

import java.time.Instant;
import java.util.Map;

import io.github.delayqueue.DeadLetter;
import io.github.delayqueue.MessageInfo;
import io.github.delayqueue.MessageState;
import org.jspecify.annotations.Nullable;

/**
 * A message as the dashboard shows it, with its payload as text, cut to a length fit for a page.
 *
 * @param id the message id
 * @param state where it is
 * @param dueAt when it is due (Redis clock), or {@code null} for a dead letter
 * @param diedAt when it died, or {@code null} unless dead
 * @param attempts the attempts counted
 * @param error its last error, or {@code null}
 * @param createdAt when it was scheduled, or {@code null} if unreadable
 * @param expiresAt its expiry deadline, or {@code null}
 * @param headers its headers
 * @param payload its payload (JSON text), cut to {@code maxPayload} characters
 * @param payloadCut whether the payload was cut
 * @since 1.0.0
 */
public record MessageView(String id, MessageState state, @Nullable Instant dueAt, @Nullable Instant diedAt,
		int attempts, @Nullable String error, @Nullable Instant createdAt, @Nullable Instant expiresAt,
		Map<String, String> headers, String payload, boolean payloadCut) {

	/**
	 * The view of a message found or listed.
	 * @param info the message
	 * @param maxPayload how many characters of the payload to keep
	 * @return the view
	 */
	public static MessageView of(MessageInfo info, int maxPayload) {
		String payload = info.payloadAsString();
		return new MessageView(info.id(), info.state(), info.dueAt(), info.diedAt(), info.attempts(),
				info.lastError(), info.createdAt(), info.expiresAt(), info.headers(), cut(payload, maxPayload),
				payload.length() > maxPayload);
	}

	/**
	 * The view of a dead letter.
	 * @param letter the dead letter
	 * @param maxPayload how many characters of the payload to keep
	 * @return the view
	 */
	public static MessageView of(DeadLetter letter, int maxPayload) {
		String payload = letter.payloadAsString();
		return new MessageView(letter.id(), MessageState.DEAD, null, letter.diedAt(), letter.attempts(),
				letter.error(), letter.createdAt(), null, letter.headers(), cut(payload, maxPayload),
				payload.length() > maxPayload);
	}

	private static String cut(String text, int max) {
		return (text.length() > max) ? text.substring(0, max) : text;
	}

}
