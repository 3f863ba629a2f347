package io.github.delayqueue;

import java.time.Duration;
import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * One message to schedule: its topic, payload, due time and, optionally, its own id and headers. Built with
 * {@link #builder(String, Object)}; the builder validates each value as it is set.
 *
 * <pre class="code">
 * ScheduleRequest request = ScheduleRequest.builder("order-timeout", new OrderTimeout(42))
 *     .id("order-42")
 *     .delay(Duration.ofMinutes(30))
 *     .header("tenant", "acme")
 *     .build();
 * </pre>
 *
 * @since 0.1.0
 */
public final class ScheduleRequest {

	/** The longest delay accepted: later due times are rejected rather than rounded. */
	public static final Duration MAX_DELAY = Duration.ofDays(36_500);

	/** The most headers a message may carry. */
	public static final int MAX_HEADERS = 64;

	/** The longest header name or value, in characters. */
	public static final int MAX_HEADER_LENGTH = 4096;

	private static final Instant LATEST_DUE_AT = Instant.parse("9999-12-31T23:59:59.999Z");

	private final String topic;

	private final @Nullable String id;

	private final Object payload;

	private final @Nullable Duration delay;

	private final @Nullable Instant dueAt;

	private final Map<String, String> headers;

	private final @Nullable Instant expiresAt;

	private final ExpiryAction onExpiry;

	private final @Nullable String group;

	private final int priority;

	private ScheduleRequest(Builder builder) {
		this.topic = builder.topic;
		this.id = builder.id;
		this.payload = builder.payload;
		this.delay = builder.delay;
		this.dueAt = builder.dueAt;
		this.headers = Collections.unmodifiableMap(new LinkedHashMap<>(builder.headers));
		this.expiresAt = builder.expiresAt;
		this.onExpiry = builder.onExpiry;
		this.group = builder.group;
		this.priority = builder.priority;
		Assert.isTrue(this.expiresAt == null || this.dueAt == null || this.expiresAt.isAfter(this.dueAt),
				() -> "Expiry deadline " + this.expiresAt + " must be after the due time " + this.dueAt);
	}

	/**
	 * Starts a request that is due at once unless {@link Builder#delay(Duration)} or {@link Builder#dueAt(Instant)}
	 * says otherwise.
	 * @param topic the topic (see {@link Topics})
	 * @param payload the payload, serialised as JSON
	 * @return a builder
	 * @throws InvalidTopicException if the topic is not valid
	 * @throws IllegalArgumentException if the payload is {@code null}
	 */
	public static Builder builder(String topic, Object payload) {
		return new Builder(topic, payload);
	}

	/**
	 * Topic of the message.
	 * @return the topic
	 */
	public String topic() {
		return this.topic;
	}

	/**
	 * Caller's id of the message, or {@code null} for a generated one.
	 * @return the id or {@code null}
	 */
	public @Nullable String id() {
		return this.id;
	}

	/**
	 * Payload of the message.
	 * @return the payload
	 */
	public Object payload() {
		return this.payload;
	}

	/**
	 * Delay from now, or {@code null} when an absolute {@link #dueAt()} is set.
	 * @return the delay or {@code null}
	 */
	public @Nullable Duration delay() {
		return this.delay;
	}

	/**
	 * Absolute due time on the Redis clock, or {@code null} when a {@link #delay()} is set.
	 * @return the due time or {@code null}
	 */
	public @Nullable Instant dueAt() {
		return this.dueAt;
	}

	/**
	 * Headers of the message, delivered with it.
	 * @return the headers, never {@code null}
	 */
	public Map<String, String> headers() {
		return this.headers;
	}

	/**
	 * The deadline after which the message must not be delivered, or {@code null} if it has none.
	 * @return the deadline or {@code null}
	 * @since 1.0.0
	 */
	public @Nullable Instant expiresAt() {
		return this.expiresAt;
	}

	/**
	 * What becomes of the message if its deadline passes before it is delivered.
	 * @return the action; {@link ExpiryAction#DEAD_LETTER} unless set
	 * @since 1.0.0
	 */
	public ExpiryAction onExpiry() {
		return this.onExpiry;
	}

	/**
	 * The group the message belongs to, or {@code null} if none.
	 * @return the group key or {@code null}
	 * @since 1.0.0
	 */
	public @Nullable String group() {
		return this.group;
	}

	/**
	 * The priority of the message: {@value MessagePriorities#MIN} (lowest) to {@value MessagePriorities#MAX}.
	 * @return the priority; {@value MessagePriorities#DEFAULT} unless set
	 * @since 1.0.0
	 */
	public int priority() {
		return this.priority;
	}

	/**
	 * This request with an id: itself if it has that id already.
	 * @param id the id
	 * @return a request for the same message with this id
	 */
	ScheduleRequest withId(String id) {
		if (id.equals(this.id)) {
			return this;
		}
		Builder builder = new Builder(this.topic, this.payload).id(id).headers(this.headers);
		if (this.expiresAt != null) {
			builder.expiresAt(this.expiresAt, this.onExpiry);
		}
		if (this.group != null) {
			builder.group(this.group);
		}
		builder.priority(this.priority);
		return (this.dueAt != null) ? builder.dueAt(this.dueAt).build()
				: builder.delay((this.delay != null) ? this.delay : Duration.ZERO).build();
	}

	@Override
	public String toString() {
		return "ScheduleRequest[topic=" + this.topic + ", id=" + this.id + ", "
				+ ((this.dueAt != null) ? "dueAt=" + this.dueAt : "delay=" + this.delay) + "]";
	}

	/** Builds a {@link ScheduleRequest}. */
	public static final class Builder {

		private final String topic;

		private final Object payload;

		private @Nullable String id;

		private @Nullable Duration delay = Duration.ZERO;

		private @Nullable Instant dueAt;

		private final Map<String, String> headers = new LinkedHashMap<>();

		private @Nullable Instant expiresAt;

		private ExpiryAction onExpiry = ExpiryAction.DEAD_LETTER;

		private @Nullable String group;

		private int priority = MessagePriorities.DEFAULT;

		private Builder(String topic, Object payload) {
			Topics.validate(topic);
			Assert.isTrue(payload != null, "Payload must not be null");
			this.topic = topic;
			this.payload = payload;
		}

		/**
		 * Gives the message an id of the caller's choosing, such as {@code order-42}: 1 to 200 characters, no
		 * white space or control characters. Without one, a 22-character id is generated (see
		 * {@link MessageIds#generate()}): it sorts by creation time.
		 * @param id the id
		 * @return this builder
		 */
		public Builder id(String id) {
			MessageIds.validate(id);
			this.id = id;
			return this;
		}

		/**
		 * Makes the message due this long from now on the Redis clock; rounded up to whole milliseconds.
		 * @param delay zero or more, at most {@link #MAX_DELAY}
		 * @return this builder
		 */
		public Builder delay(Duration delay) {
			validateDelay(delay);
			this.delay = delay;
			this.dueAt = null;
			return this;
		}

		/**
		 * Makes the message due at an instant on the Redis clock; an instant in the past makes it due at once.
		 * @param dueAt the due time, not after the end of the year 9999
		 * @return this builder
		 */
		public Builder dueAt(Instant dueAt) {
			Assert.isTrue(dueAt != null, "Due time must not be null");
			Assert.isTrue(!dueAt.isAfter(LATEST_DUE_AT),
					() -> "Due time " + dueAt + " is after " + LATEST_DUE_AT + " and cannot be represented");
			this.dueAt = dueAt;
			this.delay = null;
			return this;
		}

		/**
		 * Adds a header, delivered with the message.
		 * @param name the header name, not blank
		 * @param value the header value
		 * @return this builder
		 */
		public Builder header(String name, String value) {
			Assert.isTrue(name != null && !name.isBlank(), "Header name must not be blank");
			Assert.isTrue(value != null, () -> "Header '" + name + "' must have a value");
			Assert.isTrue(name.length() <= MAX_HEADER_LENGTH && value.length() <= MAX_HEADER_LENGTH,
					() -> "Header '" + name + "' is longer than " + MAX_HEADER_LENGTH + " characters");
			Assert.isTrue(this.headers.size() < MAX_HEADERS || this.headers.containsKey(name),
					() -> "A message carries at most " + MAX_HEADERS + " headers");
			this.headers.put(name, value);
			return this;
		}

		/**
		 * Adds headers, delivered with the message.
		 * @param headers the headers
		 * @return this builder
		 */
		public Builder headers(Map<String, String> headers) {
			Assert.isTrue(headers != null, "Headers must not be null");
			headers.forEach(this::header);
			return this;
		}

		/**
		 * Gives the message a deadline on the Redis clock: it is never delivered after it, but goes to the dead
		 * letters with the reason (or is dropped, see {@link #expiresAt(Instant, ExpiryAction)}) and is counted in
		 * the {@code delayqueue.messages.expired} metric. A message that waits for a retry expires too. The deadline
		 * must come after the due time (for a delay, after now plus the delay when the request is scheduled).
		 * @param deadline the deadline
		 * @return this builder
		 * @since 1.0.0
		 */
		public Builder expiresAt(Instant deadline) {
			return expiresAt(deadline, ExpiryAction.DEAD_LETTER);
		}

		/**
		 * Gives the message a deadline on the Redis clock, and says what becomes of it when the deadline passes
		 * before it is delivered.
		 * @param deadline the deadline
		 * @param action dead-letter it (with the reason) or drop it
		 * @return this builder
		 * @since 1.0.0
		 */
		public Builder expiresAt(Instant deadline, ExpiryAction action) {
			Assert.isTrue(deadline != null, "Expiry deadline must not be null");
			Assert.isTrue(action != null, "Expiry action must not be null");
			Assert.isTrue(!deadline.isAfter(LATEST_DUE_AT),
					() -> "Expiry deadline " + deadline + " is after " + LATEST_DUE_AT + " and cannot be represented");
			this.expiresAt = deadline;
			this.onExpiry = action;
			return this;
		}

		/**
		 * Puts the message in a group of its topic, such as a tenant or a customer: among the due messages of a
		 * topic, its groups are served in turn, so that one group's burst does not hold up another's, and a group may
		 * have a concurrency cap and be paused on every instance (see {@code DelayedQueueAdmin}). Messages without
		 * a group are served as one more group. The listener sees the group in {@link DeliveredMessage#group()}.
		 * @param group 1 to {@value MessageGroups#MAX_LENGTH} printable ASCII characters, no space (see
		 * {@link MessageGroups#validate(String)})
		 * @return this builder
		 * @throws IllegalArgumentException if the group key is not valid
		 * @since 1.0.0
		 */
		public Builder group(String group) {
			MessageGroups.validate(group);
			this.group = group;
			return this;
		}

		/**
		 * Gives the message a priority: among the due messages of its topic, a higher priority starts first. By
		 * default every level with due messages gets a share weighted by {@code level + 1} (a lower level is never
		 * starved); a topic may opt in to strict order (see {@link MessagePriorities.PriorityMode}). A delayed message
		 * gets its priority when it falls due. The listener sees it in {@link DeliveredMessage#priority()}. A message
		 * with a group has its priority within its group's share: the group's due messages are shared among their
		 * levels in the same way.
		 * @param priority {@value MessagePriorities#MIN} (lowest) to {@value MessagePriorities#MAX} (highest);
		 * {@value MessagePriorities#DEFAULT} unless set
		 * @return this builder
		 * @throws IllegalArgumentException if the priority is out of range
		 * @since 1.0.0
		 */
		public Builder priority(int priority) {
			MessagePriorities.validate(priority);
			this.priority = priority;
			return this;
		}

		/**
		 * Builds the request.
		 * @return the request
		 * @throws IllegalArgumentException if the expiry deadline is not after an absolute due time
		 */
		public ScheduleRequest build() {
			return new ScheduleRequest(this);
		}

	}

	/**
	 * Checks a delay as {@link Builder#delay(Duration)} does.
	 * @param delay the delay
	 * @throws IllegalArgumentException if it is {@code null}, negative or longer than {@link #MAX_DELAY}
	 */
	public static void validateDelay(Duration delay) {
		Assert.isTrue(delay != null, "Delay must not be null");
		Assert.isTrue(!delay.isNegative(), () -> "Delay must not be negative, but was " + delay);
		Assert.isTrue(delay.compareTo(MAX_DELAY) <= 0,
				() -> "Delay " + delay + " is longer than the maximum of " + MAX_DELAY + " and cannot be represented");
	}

}
