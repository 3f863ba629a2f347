package io.github.delayqueue.dashboard.web;

import java.util.concurrent.Callable;

import io.github.delayqueue.TopGroups;
import io.github.delayqueue.TopicControlState;
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
import io.github.delayqueue.dashboard.web.DashboardApiController.Changed;
import io.github.delayqueue.dashboard.web.DashboardApiController.LimitsRequest;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

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
 * The dashboard's JSON API in a Spring WebFlux application: the same paths, answers and errors as
 * {@link DashboardApiController} gives on Spring MVC, which does the work. Every operation that calls Redis runs
 * on Reactor's bounded elastic scheduler, never on an event-loop thread; the overview is read from memory.
 *
 * @since 1.0.0
 */
@RestController
@RequestMapping(DashboardPageController.MAPPING + "/api")
public class ReactiveDashboardApiController {

	private static final String TOPIC = "/topics/{topic}";

	private static final String DEFAULT_PAGE = "20";

	private final DashboardApiController api;

	private final Scheduler scheduler = Schedulers.boundedElastic();

	/**
	 * Creates the API.
	 * @param sampler what the overview shows
	 * @param browser reads messages on demand
	 * @param timeline counts when messages fall due
	 * @param actions changes topics (when writes are open)
	 */
	public ReactiveDashboardApiController(TopicSampler sampler, TopicBrowser browser, DueTimeline timeline,
			TopicActions actions) {
		this.api = new DashboardApiController(sampler, browser, timeline, actions);
	}

	/**
	 * Every sampled topic and recurring schedule, from memory.
	 * @return the overview
	 */
	@GetMapping("/overview")
	public Overview overview() {
		return this.api.overview();
	}

	/**
	 * When a topic's waiting messages fall due, from now on.
	 * @param topic the topic
	 * @param seconds how far ahead (10 s to a year)
	 * @return the timeline
	 */
	@GetMapping(TOPIC + "/timeline")
	public Mono<Timeline> timeline(@PathVariable String topic, @RequestParam(defaultValue = "3600") long seconds) {
		return offTheEventLoop(() -> this.api.timeline(topic, seconds));
	}

	/**
	 * One message, in whatever state.
	 * @param topic the topic
	 * @param id the message id
	 * @return the message, or 404 if the topic holds none with that id
	 */
	@GetMapping(TOPIC + "/message")
	public Mono<ResponseEntity<MessageView>> message(@PathVariable String topic, @RequestParam String id) {
		return offTheEventLoop(() -> this.api.message(topic, id));
	}

	/**
	 * A page of waiting messages by due time.
	 * @param topic the topic
	 * @param limit the page size (1 to 100)
	 * @param cursor the previous page's cursor
	 * @return the page
	 */
	@GetMapping(TOPIC + "/waiting")
	public Mono<WaitingPage> waiting(@PathVariable String topic, @RequestParam(defaultValue = DEFAULT_PAGE) int limit,
			@RequestParam(required = false) @Nullable String cursor) {
		return offTheEventLoop(() -> this.api.waiting(topic, limit, cursor));
	}

	/**
	 * A page of dead letters, oldest first.
	 * @param topic the topic
	 * @param offset how many to skip
	 * @param limit the page size (1 to 100)
	 * @return the page
	 */
	@GetMapping(TOPIC + "/dead")
	public Mono<DeadLetterPage> deadLetters(@PathVariable String topic, @RequestParam(defaultValue = "0") int offset,
			@RequestParam(defaultValue = DEFAULT_PAGE) int limit) {
		return offTheEventLoop(() -> this.api.deadLetters(topic, offset, limit));
	}

	/**
	 * The groups with the most messages waiting, with their messages in flight, pause and weight.
	 * @param topic the topic
	 * @param top how many groups (1 to 100)
	 * @return the groups, the most waiting first
	 */
	@GetMapping(TOPIC + "/groups")
	public Mono<TopGroups> groups(@PathVariable String topic, @RequestParam(defaultValue = DEFAULT_PAGE) int top) {
		return offTheEventLoop(() -> this.api.groups(topic, top));
	}

	/**
	 * Pauses a topic on every instance.
	 * @param topic the topic
	 * @return its controls now
	 */
	@PostMapping(TOPIC + "/pause")
	public Mono<TopicControlState> pause(@PathVariable String topic) {
		return offTheEventLoop(() -> this.api.pause(topic));
	}

	/**
	 * Resumes a topic on every instance.
	 * @param topic the topic
	 * @return its controls now
	 */
	@PostMapping(TOPIC + "/resume")
	public Mono<TopicControlState> resume(@PathVariable String topic) {
		return offTheEventLoop(() -> this.api.resume(topic));
	}

	/**
	 * Sets a topic's limits on every instance.
	 * @param topic the topic
	 * @param limits the rate limit and cap; absent or 0 for none
	 * @return its controls now
	 */
	@PostMapping(TOPIC + "/limits")
	public Mono<TopicControlState> limits(@PathVariable String topic, @RequestBody LimitsRequest limits) {
		return offTheEventLoop(() -> this.api.limits(topic, limits));
	}

	/**
	 * Replays one dead letter, or every one of the topic.
	 * @param topic the topic
	 * @param id the message id, or absent for all
	 * @return how many were replayed
	 */
	@PostMapping(TOPIC + "/dead/replay")
	public Mono<Changed> replay(@PathVariable String topic, @RequestParam(required = false) @Nullable String id) {
		return offTheEventLoop(() -> this.api.replay(topic, id));
	}

	/**
	 * Deletes one dead letter, or every one of the topic.
	 * @param topic the topic
	 * @param id the message id, or absent for all
	 * @return how many were deleted
	 */
	@DeleteMapping(TOPIC + "/dead")
	public Mono<Changed> purge(@PathVariable String topic, @RequestParam(required = false) @Nullable String id) {
		return offTheEventLoop(() -> this.api.purge(topic, id));
	}

	/**
	 * Writes are closed: 403.
	 * @param ex the refusal
	 * @return the problem
	 */
	@ExceptionHandler(ReadOnlyDashboardException.class)
	public ResponseEntity<ProblemDetail> readOnly(ReadOnlyDashboardException ex) {
		return this.api.readOnly(ex);
	}

	/**
	 * Bad input (an invalid topic, id, limit or cursor; an unknown topic to pause): 400.
	 * @param ex the error
	 * @return the problem
	 */
	@ExceptionHandler(IllegalArgumentException.class)
	public ResponseEntity<ProblemDetail> badRequest(IllegalArgumentException ex) {
		return this.api.badRequest(ex);
	}

	/**
	 * Runs the work on the bounded elastic scheduler and answers from there. Not {@code subscribeOn}: when the answer
	 * is taken, WebFlux cancels upstream, and disposing the scheduled task interrupts the worker while it is still
	 * writing that answer, which a servlet container (Tomcat) then fails to send, closing the connection; and the
	 * interrupt is left on a thread that makes blocking Redis calls. A task here is never disposed: a Redis call is
	 * short, and its answer is dropped if nobody waits for it.
	 */
	private <T> Mono<T> offTheEventLoop(Callable<@Nullable T> work) {
		return Mono.create((sink) -> this.scheduler.schedule(() -> {
			T result;
			try {
				result = work.call();
			}
			catch (Throwable ex) {
				sink.error(ex);
				return;
			}
			sink.success(result);
		}));
	}

}
