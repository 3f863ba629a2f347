package io.github.delayqueue.dashboard.autoconfigure;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Configuration properties of the delayqueue dashboard ({@code delayqueue.dashboard.*}). They hold values only; the
 * auto-configuration checks them when it builds the dashboard.
 *
 * @since 1.0.0
 */
@ConfigurationProperties("delayqueue.dashboard")
public class DashboardProperties {

	/**
	 * Whether to serve the dashboard (its module on the class path is the opt-in).
	 */
	private boolean enabled = true;

	/**
	 * Path the dashboard is served under (its page; its API under path/api).
	 */
	private String path = "/delayqueue";

	/**
	 * Whether the dashboard may change data (replay, purge, pause, resume, limits). Unset, it follows the access of
	 * the delayqueue actuator endpoint (management.endpoint.delayqueue.access), which is read-only by default.
	 */
	private @Nullable Access access;

	/**
	 * How often every topic is sampled in the background (and the page refreshes).
	 */
	private Duration sampleInterval = Duration.ofSeconds(5);

	/**
	 * How many samples of each topic are kept for its trend.
	 */
	private int historySize = 120;

	/**
	 * Most topics sampled (by name); the others are counted only.
	 */
	private int maxTopics = 100;

	private final Timeline timeline = new Timeline();

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public String getPath() {
		return this.path;
	}

	public void setPath(String path) {
		this.path = path;
	}

	public @Nullable Access getAccess() {
		return this.access;
	}

	public void setAccess(@Nullable Access access) {
		this.access = access;
	}

	public Duration getSampleInterval() {
		return this.sampleInterval;
	}

	public void setSampleInterval(Duration sampleInterval) {
		this.sampleInterval = sampleInterval;
	}

	public int getHistorySize() {
		return this.historySize;
	}

	public void setHistorySize(int historySize) {
		this.historySize = historySize;
	}

	public int getMaxTopics() {
		return this.maxTopics;
	}

	public void setMaxTopics(int maxTopics) {
		this.maxTopics = maxTopics;
	}

	public Timeline getTimeline() {
		return this.timeline;
	}

	/**
	 * What the dashboard may do.
	 */
	public enum Access {

		/** Show only: every write is refused (403). */
		READ_ONLY,

		/** Show and change: replay, purge, pause, resume and limits (behind the application's own security). */
		UNRESTRICTED

	}

	/**
	 * The due-time timeline of a topic.
	 */
	public static class Timeline {

		/**
		 * How many buckets the horizon is cut into (at most 200), each counted exactly.
		 */
		private int buckets = 30;

		public int getBuckets() {
			return this.buckets;
		}

		public void setBuckets(int buckets) {
			this.buckets = buckets;
		}

	}

}
