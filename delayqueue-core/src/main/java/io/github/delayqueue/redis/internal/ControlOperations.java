package io.github.delayqueue.redis.internal;

import java.util.ArrayList;
import java.util.List;

import io.github.delayqueue.redis.RedisMessageStore;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.ReturnType;
import org.springframework.util.Assert;

import static io.github.delayqueue.redis.internal.Replies.bytes;
import static io.github.delayqueue.redis.internal.Replies.nullableText;
import static io.github.delayqueue.redis.internal.Replies.number;
import static io.github.delayqueue.redis.internal.Replies.text;

/**
 * A topic's pause, rate limit and concurrency cap, kept in Redis beside its messages (one partition's at a time), so
 * that every instance's claims follow them: a claim leases nothing while paused, no more than the cap leaves free,
 * and no more than a token bucket on the Redis clock allows. A topic that uses none of them costs its claims one
 * command. Obtained from {@link RedisMessageStore#controls()}.
 *
 * @since 1.0.0
 */
public final class ControlOperations {

	private static final Script CONTROL = Script.load("control");

	private static final byte[] READ = bytes("read");

	private static final byte[] PAUSE = bytes("pause");

	private static final byte[] RESUME = bytes("resume");

	private static final byte[] LIMIT = bytes("limit");

	private static final byte[] NONE = bytes("");

	private static final byte[] GROUP_READ = bytes("group-read");

	private static final byte[] GROUP_PAUSE = bytes("group-pause");

	private static final byte[] GROUP_RESUME = bytes("group-resume");

	private static final byte[] GROUP_CAP = bytes("group-cap");

	private static final byte[] PRIORITY_MODE = bytes("priority-mode");

	private static final byte[] GROUP_RATE = bytes("group-rate");
	private static final byte[] GROUP_WEIGHT = bytes("group-weight");

	private static final Script GROUP_COUNTS = Script.load("group-counts");

	private static final byte[] TOP = bytes("top");

	private static final byte[] COUNT = bytes("read");

	private final TopicKeys keys;

	private final ScriptExecutor scripts;

	/** Made by {@link io.github.delayqueue.redis.RedisMessageStore}, on its keys and script runner. */
	public ControlOperations(TopicKeys keys, ScriptExecutor scripts) {
		this.keys = keys;
		this.scripts = scripts;
	}

	/**
	 * Reads the controls of a topic.
	 * @param topic the topic (or a partition's name)
	 * @return the controls
	 */
	public ControlState read(String topic) {
		return stateOf(this.scripts.run(CONTROL, ReturnType.MULTI, this.keys.pending(topic), READ));
	}

	/**
	 * Pauses a topic: claims lease nothing until it is resumed; messages keep their due times.
	 * @param topic the topic (or a partition's name)
	 * @return the controls now
	 */
	public ControlState pause(String topic) {
		return stateOf(this.scripts.runReplicated(CONTROL, ReturnType.MULTI, this.keys.pending(topic), PAUSE));
	}

	/**
	 * Resumes a paused topic and wakes its consumers, so that what is due is delivered at once.
	 * @param topic the topic (or a partition's name)
	 * @return the controls now
	 */
	public ControlState resume(String topic) {
		return stateOf(this.scripts.runReplicated(CONTROL, ReturnType.MULTI, this.keys.pending(topic), RESUME));
	}

	/**
	 * Sets or clears a topic's rate limit and concurrency cap, and wakes its consumers.
	 * @param topic the topic (or a partition's name)
	 * @param ratePerSecond the most handler starts per second, or {@code null} for no limit
	 * @param burst the most starts saved up while idle (used only with a rate)
	 * @param cap the most messages leased at once, or {@code null} for no cap
	 * @return the controls now
	 */
	public ControlState limit(String topic, @Nullable Double ratePerSecond, double burst, @Nullable Long cap) {
		return stateOf(this.scripts.runReplicated(CONTROL, ReturnType.MULTI, this.keys.pending(topic), LIMIT,
				(ratePerSecond != null) ? bytes(Double.toString(ratePerSecond)) : NONE,
				bytes(Double.toString(burst)), (cap != null) ? bytes(cap) : NONE));
	}

	/**
	 * Reads the controls and counts of one group of a topic (see the "Fair delivery" reference page).
	 * @param topic the topic (or a partition's name)
	 * @param group the group key
	 * @return the group's controls and counts
	 * @since 1.0.0
	 */
	public GroupState readGroup(String topic, String group) {
		return groupStateOf(this.scripts.run(CONTROL, ReturnType.MULTI, this.keys.pending(topic), GROUP_READ,
				bytes(group)));
	}

	/**
	 * Pauses one group of a topic: claims lease none of its messages until it is resumed (the topic's other groups
	 * flow); its messages keep their due times.
	 * @param topic the topic (or a partition's name)
	 * @param group the group key
	 * @return the group's controls and counts now
	 * @since 1.0.0
	 */
	public GroupState pauseGroup(String topic, String group) {
		return groupStateOf(this.scripts.runReplicated(CONTROL, ReturnType.MULTI, this.keys.pending(topic),
				GROUP_PAUSE, bytes(group)));
	}

	/**
	 * Resumes a paused group and wakes the topic's consumers, so that what is due is delivered at once.
	 * @param topic the topic (or a partition's name)
	 * @param group the group key
	 * @return the group's controls and counts now
	 * @since 1.0.0
	 */
	public GroupState resumeGroup(String topic, String group) {
		return groupStateOf(this.scripts.runReplicated(CONTROL, ReturnType.MULTI, this.keys.pending(topic),
				GROUP_RESUME, bytes(group)));
	}

	/**
	 * Sets or clears the concurrency cap of one group, or the default cap of every group of a topic: the most
	 * messages of a group leased at once, across every instance.
	 * @param topic the topic (or a partition's name)
	 * @param group the group key, or {@code null} for the default of every group of the topic
	 * @param cap the cap, at least 1, or {@code null} for none
	 * @return the controls and counts of the group ({@code null}: of no group, with the default)
	 * @since 1.0.0
	 */
	public GroupState capGroup(String topic, @Nullable String group, @Nullable Long cap) {
		Assert.isTrue(cap == null || cap >= 1, () -> "A group's cap must be at least 1, but was " + cap);
		return groupStateOf(this.scripts.runReplicated(CONTROL, ReturnType.MULTI, this.keys.pending(topic), GROUP_CAP,
				(group != null) ? bytes(group) : NONE, (cap != null) ? bytes(cap) : NONE));
	}

	/**
	 * Sets or reads how a topic orders the priorities of its due messages (see the "Fair delivery" reference page).
	 * @param topic the topic (or a partition's name)
	 * @param strict {@code true} for strict order, {@code false} for weighted shares (the default), {@code null} to
	 * read it only
	 * @return whether the order is strict now
	 * @since 1.0.0
	 */
	public boolean priorityMode(String topic, @Nullable Boolean strict) {
		byte[] mode = (strict == null) ? NONE : bytes(strict ? "strict" : "weighted");
		Object reply = (strict == null)
				? this.scripts.run(CONTROL, ReturnType.VALUE, this.keys.pending(topic), PRIORITY_MODE, mode)
				: this.scripts.runReplicated(CONTROL, ReturnType.VALUE, this.keys.pending(topic), PRIORITY_MODE, mode);
		return "strict".equals(nullableText(reply));
	}

	/**
	 * Sets or clears the rate limit of one group, or the default rate limit of every group of a topic: a token bucket
	 * on the Redis clock with a burst of one second's starts (at least one), followed by every instance's claims.
	 * @param topic the topic (or a partition's name)
	 * @param group the group key, or {@code null} for the default of every group of the topic
	 * @param ratePerSecond the most handler starts per second, positive, or {@code null} for none
	 * @return the controls and counts of the group ({@code null}: of no group, with the default)
	 * @since 1.0.0
	 */
	public GroupState rateGroup(String topic, @Nullable String group, @Nullable Double ratePerSecond) {
		Assert.isTrue(ratePerSecond == null || (ratePerSecond > 0 && Double.isFinite(ratePerSecond)),
				() -> "A group's rate limit must be positive, but was " + ratePerSecond);
		return groupStateOf(this.scripts.runReplicated(CONTROL, ReturnType.MULTI, this.keys.pending(topic), GROUP_RATE,
				(group != null) ? bytes(group) : NONE,
				(ratePerSecond != null) ? bytes(Double.toString(ratePerSecond)) : NONE));
	}

	/**
	 * Sets or clears the weight of one group of a topic: its share among the groups served in turn (a group of weight
	 * 3 gets three times the share of one of weight 1 while both have messages due).
	 * @param topic the topic (or a partition's name)
	 * @param group the group key
	 * @param weight the weight, at least 1, or {@code null} for the default (1)
	 * @return the group's controls and counts now
	 * @since 1.0.0
	 */
	public GroupState weighGroup(String topic, String group, @Nullable Integer weight) {
		Assert.isTrue(weight == null || weight >= 1, () -> "A group's weight must be at least 1, but was " + weight);
		return groupStateOf(this.scripts.runReplicated(CONTROL, ReturnType.MULTI, this.keys.pending(topic),
				GROUP_WEIGHT, bytes(group), (weight != null) ? bytes(weight) : NONE));
	}

	/**
	 * Reads the groups of a topic with the most messages waiting, bounded: no message is read, one {@code ZCARD} per
	 * group looked at, and at most {@code most} groups with a turn and {@code most} held ones (paused or at their
	 * cap) are looked at.
	 * @param topic the topic (or a partition's name)
	 * @param count how many groups to return at most
	 * @param most how many groups with a turn, and how many held, to look at at most
	 * @return the groups, the most waiting first, and whether every group was looked at
	 * @since 1.0.0
	 */
	public GroupCounts topGroups(String topic, int count, int most) {
		return groupCountsOf(this.scripts.run(GROUP_COUNTS, ReturnType.MULTI, this.keys.pending(topic), TOP,
				bytes(count), bytes(most)));
	}

	/**
	 * Reads the counts of the named groups of a topic: one {@code ZCARD} per group.
	 * @param topic the topic (or a partition's name)
	 * @param groups the group keys (a few hundred at most per call)
	 * @return their counts, in the order given
	 * @since 1.0.0
	 */
	public GroupCounts countGroups(String topic, List<String> groups) {
		byte[][] args = new byte[groups.size() + 2][];
		args[0] = this.keys.pending(topic);
		args[1] = COUNT;
		for (int i = 0; i < groups.size(); i++) {
			args[i + 2] = bytes(groups.get(i));
		}
		return groupCountsOf(this.scripts.run(GROUP_COUNTS, ReturnType.MULTI, args));
	}

	private static GroupCounts groupCountsOf(List<?> reply) {
		List<GroupCount> groups = new ArrayList<>((reply.size() - 1) / 5);
		for (int i = 1; i + 4 < reply.size(); i += 5) {
			String weight = nullableText(reply.get(i + 4));
			groups.add(new GroupCount(text(reply.get(i)), number(reply.get(i + 1)), number(reply.get(i + 2)),
					number(reply.get(i + 3)) == 1L, (weight != null) ? Integer.parseInt(weight) : null));
		}
		return new GroupCounts(groups, number(reply.get(0)) == 1L);
	}

	private static GroupState groupStateOf(List<?> reply) {
		String cap = nullableText(reply.get(1));
		String defaultCap = nullableText(reply.get(2));
		String weight = (reply.size() > 5) ? nullableText(reply.get(5)) : null;
		String rate = (reply.size() > 6) ? nullableText(reply.get(6)) : null;
		String defaultRate = (reply.size() > 7) ? nullableText(reply.get(7)) : null;
		return new GroupState(number(reply.get(0)) == 1L, (cap != null) ? Long.valueOf(cap) : null,
				(defaultCap != null) ? Long.valueOf(defaultCap) : null, number(reply.get(3)), number(reply.get(4)),
				(weight != null) ? Integer.valueOf(weight) : null, (rate != null) ? Double.valueOf(rate) : null,
				(defaultRate != null) ? Double.valueOf(defaultRate) : null);
	}

	private static ControlState stateOf(List<?> reply) {
		String rate = nullableText(reply.get(1));
		String burst = nullableText(reply.get(2));
		String cap = nullableText(reply.get(3));
		return new ControlState(number(reply.get(0)) == 1L, (rate != null) ? Double.valueOf(rate) : null,
				(burst != null) ? Double.valueOf(burst) : null, (cap != null) ? Long.valueOf(cap) : null);
	}

	/**
	 * The controls of one topic or partition as Redis keeps them.
	 * @param paused whether claims lease nothing
	 * @param ratePerSecond the most handler starts per second, or {@code null}
	 * @param burst the most starts saved up, or {@code null}
	 * @param cap the most messages leased at once, or {@code null}
	 */
	public record ControlState(boolean paused, @Nullable Double ratePerSecond, @Nullable Double burst,
			@Nullable Long cap) {
	}

	/**
	 * The controls and counts of one group of one topic or partition as Redis keeps them.
	 * @param paused whether claims lease none of its messages
	 * @param cap the group's own cap, or {@code null}
	 * @param defaultCap the topic's default cap for its groups, or {@code null}
	 * @param leased how many of its messages are leased now
	 * @param waiting how many of its messages wait (scheduled or waiting for a retry)
	 * @param weight its weight among the groups served in turn, or {@code null} for the default (1)
	 * @param ratePerSecond the group's own rate limit, or {@code null}
	 * @param defaultRatePerSecond the topic's default rate limit for its groups, or {@code null}
	 * @since 1.0.0
	 */
	public record GroupState(boolean paused, @Nullable Long cap, @Nullable Long defaultCap, long leased,
			long waiting, @Nullable Integer weight, @Nullable Double ratePerSecond,
			@Nullable Double defaultRatePerSecond) {

		/**
		 * The controls and counts of a group of the default weight without rate limits.
		 * @param paused whether claims lease none of its messages
		 * @param cap the group's own cap, or {@code null}
		 * @param defaultCap the topic's default cap for its groups, or {@code null}
		 * @param leased how many of its messages are leased now
		 * @param waiting how many of its messages wait
		 */
		public GroupState(boolean paused, @Nullable Long cap, @Nullable Long defaultCap, long leased, long waiting) {
			this(paused, cap, defaultCap, leased, waiting, null, null, null);
		}

		/**
		 * The controls and counts of a group without rate limits.
		 * @param paused whether claims lease none of its messages
		 * @param cap the group's own cap, or {@code null}
		 * @param defaultCap the topic's default cap for its groups, or {@code null}
		 * @param leased how many of its messages are leased now
		 * @param waiting how many of its messages wait
		 * @param weight its weight, or {@code null} for the default (1)
		 */
		public GroupState(boolean paused, @Nullable Long cap, @Nullable Long defaultCap, long leased, long waiting,
				@Nullable Integer weight) {
			this(paused, cap, defaultCap, leased, waiting, weight, null, null);
		}

		/**
		 * The controls and counts of a group of the default weight.
		 * @param paused whether claims lease none of its messages
		 * @param cap the group's own cap, or {@code null}
		 * @param defaultCap the topic's default cap for its groups, or {@code null}
		 * @param leased how many of its messages are leased now
		 * @param waiting how many of its messages wait
		 * @param ratePerSecond the group's own rate limit, or {@code null}
		 * @param defaultRatePerSecond the topic's default rate limit for its groups, or {@code null}
		 */
		public GroupState(boolean paused, @Nullable Long cap, @Nullable Long defaultCap, long leased, long waiting,
				@Nullable Double ratePerSecond, @Nullable Double defaultRatePerSecond) {
			this(paused, cap, defaultCap, leased, waiting, null, ratePerSecond, defaultRatePerSecond);
		}

		/**
		 * The cap in force for the group: its own, else the topic's default.
		 * @return the cap, or {@code null} if none
		 */
		public @Nullable Long effectiveCap() {
			return (this.cap != null) ? this.cap : this.defaultCap;
		}

	}

	/**
	 * Counts of some groups of one topic or partition.
	 * @param groups the groups
	 * @param complete whether every group with messages waiting was looked at (always, for named groups)
	 * @since 1.0.0
	 */
	public record GroupCounts(List<GroupCount> groups, boolean complete) {
	}

	/**
	 * The counts of one group of one topic or partition.
	 * @param group the group key
	 * @param waiting how many of its messages wait
	 * @param leased how many are leased now
	 * @param paused whether it is paused
	 * @param weight its weight among the groups, or {@code null} for the default
	 * @since 1.0.0
	 */
	public record GroupCount(String group, long waiting, long leased, boolean paused, @Nullable Integer weight) {
	}

}
