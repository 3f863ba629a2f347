package io.github.delayqueue.dashboard.web;

import io.github.delayqueue.dashboard.Overview;
import io.github.delayqueue.dashboard.TopicActions;
import io.github.delayqueue.dashboard.TopicSampler;
import jakarta.servlet.http.HttpServletRequest;

import org.springframework.core.io.Resource;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.stereotype.Controller;
import org.springframework.util.Assert;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestMapping;

/**
 * Serves the dashboard's page under {@code delayqueue.dashboard.path} (default {@value #DEFAULT_PATH}), and its
 * script and style sheet under {@code <path>/assets/}, in a Spring MVC application
 * ({@link ReactiveDashboardPageController} serves the same in a WebFlux one).
 *
 * @since 1.0.0
 */
@Controller
@RequestMapping(DashboardPageController.MAPPING)
public class DashboardPageController {

	/** The path the dashboard is served under unless {@code delayqueue.dashboard.path} says otherwise. */
	public static final String DEFAULT_PATH = "/delayqueue";

	/** The request mapping of the dashboard's page. */
	static final String MAPPING = "${delayqueue.dashboard.path:" + DEFAULT_PATH + "}";

	private final TopicSampler sampler;

	private final TopicActions actions;

	private final String path;

	/**
	 * Creates the page's controller.
	 * @param sampler what the page shows first
	 * @param actions whether writes are open
	 * @param path the dashboard's path, as {@code delayqueue.dashboard.path} sets it
	 */
	public DashboardPageController(TopicSampler sampler, TopicActions actions, String path) {
		Assert.notNull(sampler, "TopicSampler must not be null");
		Assert.notNull(actions, "TopicActions must not be null");
		this.sampler = sampler;
		this.actions = actions;
		this.path = path;
	}

	/**
	 * The page.
	 * @param request the request (for the context path and a CSRF token)
	 * @return the HTML
	 */
	@GetMapping(path = { "", "/" }, produces = MediaType.TEXT_HTML_VALUE)
	public ResponseEntity<String> page(HttpServletRequest request) {
		return DashboardResponses.page(DashboardPage.render(request.getContextPath() + this.path,
				Overview.of(this.sampler, this.actions.isWritable()), CsrfTokenLookup.of(request)));
	}

	/**
	 * The script or the style sheet.
	 * @param name {@code dashboard.js} or {@code dashboard.css}
	 * @return the asset
	 */
	@GetMapping("/assets/" + DashboardResponses.ASSET_NAME)
	public ResponseEntity<Resource> asset(@PathVariable String name) {
		return DashboardResponses.asset(name);
	}

}
