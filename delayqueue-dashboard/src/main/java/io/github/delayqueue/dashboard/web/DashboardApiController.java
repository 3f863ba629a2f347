package io.github.delayqueue.dashboard.web;

import java.time.Duration;
import java.time.Instant;

import io.github.delayqueue.TopGroups;
import io.github.delayqueue.TopicControlState;
import io.github.delayqueue.TopicLimits;
import io.github.delayqueue.Topics;
import io.github.delayqueue.dashboard.DueTimeline;
import io.github.delayqueue.dashboard.DueTimeline.Timeline;
import io.github.delayqueue.dashboard.MessageView;
import io.github.delayqueue.dashboard.Overview;
import io.github.delayqueue.dashboard.ReadOnlyDashboardException;
import io.github.delayqueue.dashboard.TopicActions;
import io.github.delayqueue.dashboard.TopicBrowser;
import io.github.delayqueue.dashboard.TopicBrowser.DeadLetterPage;
import io.github.delayqueue.dashboard.TopicBrowser.WaitingPage;
import io.github.delayqueue.dashboard.TopicSampler;
import org.jspecify.annotations.Nullable;

import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * The JSON API the dashboard's page polls and acts through, under {@code <path>/api}:
 * <ul>
 * <li>{@code GET overview}: every sampled topic with counts, trend, rates, lateness and controls, and the recurring
 * schedules (from memory: no Redis call);</li>
 * <li>{@code GET topics/{topic}/timeline?seconds=3600}: when waiting messages fall due (bounded);</li>
 * <li>{@code GET topics/{topic}/message?id=…}: one message in whatever state (404: none);</li>
 * <li>{@code GET topics/{topic}/waiting?limit=20&cursor=…}: waiting messages by due time, a page at a time;</li>
 * <li>{@code GET topics/{topic}/dead?offset=0&limit=20}: dead letters, oldest first;</li>
 * <li>{@code GET topics/{topic}/groups?top=20}: the groups with the most messages waiting (bounded);</li>
 * <li>{@code POST topics/{topic}/pause}, {@code …/resume}, {@code …/limits} (JSON {@code ratePerSecond},
 * {@code maxInFlight}; absent or 0: none), {@code POST topics/{topic}/dead/replay[?id=…]} and
 * {@code DELETE topics/{topic}/dead[?id=…]}: writes, refused (403) unless open.</li>
 * </ul>
 *
 * @since 1.0.0
 */
@RestController
@RequestMapping(DashboardPageController.MAPPING + "/api")
public class DashboardApiController {

	private static final String TOPIC = "/topics/{topic}";

	private static final int DEFAULT_PAGE = 20;

	private final TopicSampler sampler;

	private final TopicBrowser browser;

	private final DueTimeline timeline;

	private final TopicActions actions;

	/**
	 * Creates the API.
	 * @param sampler what the overview shows
	 * @param browser reads messages on demand
	 * @param timeline counts when messages fall due
	 * @param actions changes topics (when writes are open)
	 */
	public DashboardApiController(TopicSampler sampler, TopicBrowser browser, DueTimeline timeline,
			TopicActions actions) {
		this.sampler = sampler;
		this.browser = browser;
		this.timeline = timeline;
		this.actions = actions;
	}

	/**
	 * Every sampled topic and recurring schedule, from memory.
	 * @return the overview
	 */
	@GetMapping("/overview")
	public Overview overview() {
		return Overview.of(this.sampler, this.actions.isWritable());
	}

	/**
	 * When a topic's waiting messages fall due, from now on.
	 * @param topic the topic
	 * @param seconds how far ahead (10 s to a year)
	 * @return the timeline
	 */
	@GetMapping(TOPIC + "/timeline")
	public Timeline timeline(@PathVariable String topic, @RequestParam(defaultValue = "3600") long seconds) {
		Topics.validateTopicOrSubscription(topic);
		return this.timeline.count(topic, Instant.now(), Duration.ofSeconds(seconds));
	}

	/**
	 * One message, in whatever state.
	 * @param topic the topic
	 * @param id the message id
	 * @return the message, or 404 if the topic holds none with that id
	 */
	@GetMapping(TOPIC + "/message")
	public ResponseEntity<MessageView> message(@PathVariable String topic, @RequestParam String id) {
		return ResponseEntity.of(this.browser.lookup(topic, id));
	}

	/**
	 * A page of waiting messages by due time.
	 * @param topic the topic
	 * @param limit the page size (1 to 100)
	 * @param cursor the previous page's cursor
	 * @return the page
	 */
	@GetMapping(TOPIC + "/waiting")
	public WaitingPage waiting(@PathVariable String topic, @RequestParam(defaultValue = "" + DEFAULT_PAGE) int limit,
			@RequestParam(required = false) @Nullable String cursor) {
		return this.browser.waiting(topic, limit, (cursor == null || cursor.isEmpty()) ? null : cursor);
	}

	/**
	 * A page of dead letters, oldest first.
	 * @param topic the topic
	 * @param offset how many to skip
	 * @param limit the page size (1 to 100)
	 * @return the page
	 */
	@GetMapping(TOPIC + "/dead")
	public DeadLetterPage deadLetters(@PathVariable String topic, @RequestParam(defaultValue = "0") int offset,
			@RequestParam(defaultValue = "" + DEFAULT_PAGE) int limit) {
		return this.browser.deadLetters(topic, offset, limit);
	}

	/**
	 * The groups with the most messages waiting, with their messages in flight, pause and weight.
	 * @param topic the topic
	 * @param top how many groups (1 to 100)
	 * @return the groups, the most waiting first
	 */
	@GetMapping(TOPIC + "/groups")
	public TopGroups groups(@PathVariable String topic, @RequestParam(defaultValue = "" + DEFAULT_PAGE) int top) {
		return this.browser.groups(topic, top);
	}

	/**
	 * Pauses a topic on every instance.
	 * @param topic the topic
	 * @return its controls now
	 */
	@PostMapping(TOPIC + "/pause")
	public TopicControlState pause(@PathVariable String topic) {
		return this.actions.pause(topic);
	}

	/**
	 * Resumes a topic on every instance.
	 * @param topic the topic
	 * @return its controls now
	 */
	@PostMapping(TOPIC + "/resume")
	public TopicControlState resume(@PathVariable String topic) {
		return this.actions.resume(topic);
	}

	/**
	 * Sets a topic's limits on every instance.
	 * @param topic the topic
	 * @param limits the rate limit and cap; absent or 0 for none
	 * @return its controls now
	 */
	@PostMapping(TOPIC + "/limits")
	public TopicControlState limits(@PathVariable String topic, @RequestBody LimitsRequest limits) {
		return this.actions.limit(topic, limits.toLimits());
	}

	/**
	 * Replays one dead letter, or every one of the topic.
	 * @param topic the topic
	 * @param id the message id, or absent for all
	 * @return how many were replayed
	 */
	@PostMapping(TOPIC + "/dead/replay")
	public Changed replay(@PathVariable String topic, @RequestParam(required = false) @Nullable String id) {
		return new Changed(this.actions.replay(topic, id));
	}

	/**
	 * Deletes one dead letter, or every one of the topic.
	 * @param topic the topic
	 * @param id the message id, or absent for all
	 * @return how many were deleted
	 */
	@DeleteMapping(TOPIC + "/dead")
	public Changed purge(@PathVariable String topic, @RequestParam(required = false) @Nullable String id) {
		return new Changed(this.actions.purge(topic, id));
	}

	/**
	 * Writes are closed: 403.
	 * @param ex the refusal
	 * @return the problem
	 */
	@ExceptionHandler(ReadOnlyDashboardException.class)
	public ResponseEntity<ProblemDetail> readOnly(ReadOnlyDashboardException ex) {
		return problem(HttpStatus.FORBIDDEN, "Read-only dashboard", ex.getMessage());
	}

	/**
	 * Bad input (an invalid topic, id, limit or cursor; an unknown topic to pause): 400.
	 * @param ex the error
	 * @return the problem
	 */
	@ExceptionHandler(IllegalArgumentException.class)
	public ResponseEntity<ProblemDetail> badRequest(IllegalArgumentException ex) {
		return problem(HttpStatus.BAD_REQUEST, "Invalid request", ex.getMessage());
	}

	private static ResponseEntity<ProblemDetail> problem(HttpStatus status, String title, @Nullable String detail) {
		ProblemDetail problem = ProblemDetail.forStatusAndDetail(status, (detail != null) ? detail : title);
		problem.setTitle(title);
		return ResponseEntity.status(status).body(problem);
	}

	/**
	 * The limits the page sets.
	 *
	 * @param ratePerSecond the most handler starts per second; {@code null} or 0 for none
	 * @param maxInFlight the most messages in flight; {@code null} or 0 for none
	 */
	public record LimitsRequest(@Nullable Double ratePerSecond, @Nullable Integer maxInFlight) {

		TopicLimits toLimits() {
			Double rate = (this.ratePerSecond == null || this.ratePerSecond == 0) ? null : this.ratePerSecond;
			Integer cap = (this.maxInFlight == null || this.maxInFlight == 0) ? null : this.maxInFlight;
			return new TopicLimits(rate, cap);
		}

	}

	/**
	 * The result of a replay or purge.
	 *
	 * @param count how many dead letters were replayed or deleted
	 */
	public record Changed(long count) {
	}

}
