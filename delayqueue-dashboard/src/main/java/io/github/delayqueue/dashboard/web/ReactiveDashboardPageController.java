package io.github.delayqueue.dashboard.web;

import java.util.Optional;

import io.github.delayqueue.dashboard.Overview;
import io.github.delayqueue.dashboard.TopicActions;
import io.github.delayqueue.dashboard.TopicSampler;
import reactor.core.publisher.Mono;

import org.springframework.core.io.Resource;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.stereotype.Controller;
import org.springframework.util.Assert;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.server.ServerWebExchange;

/**
 * Serves the dashboard's page, script and style sheet in a Spring WebFlux application: the same paths and the same
 * page as {@link DashboardPageController} serves on Spring MVC. The page is rendered from the last sample, in
 * memory, so nothing here blocks.
 *
 * @since 1.0.0
 */
@Controller
@RequestMapping(DashboardPageController.MAPPING)
public class ReactiveDashboardPageController {

	private final TopicSampler sampler;

	private final TopicActions actions;

	private final String path;

	/**
	 * Creates the page's controller.
	 * @param sampler what the page shows first
	 * @param actions whether writes are open
	 * @param path the dashboard's path, as {@code delayqueue.dashboard.path} sets it
	 */
	public ReactiveDashboardPageController(TopicSampler sampler, TopicActions actions, String path) {
		Assert.notNull(sampler, "TopicSampler must not be null");
		Assert.notNull(actions, "TopicActions must not be null");
		this.sampler = sampler;
		this.actions = actions;
		this.path = path;
	}

	/**
	 * The page, with the CSRF token Spring Security's WebFlux support made for the exchange, if any.
	 * @param exchange the exchange (for the context path and a CSRF token)
	 * @return the HTML
	 */
	@GetMapping(path = { "", "/" }, produces = MediaType.TEXT_HTML_VALUE)
	public Mono<ResponseEntity<String>> page(ServerWebExchange exchange) {
		String base = exchange.getRequest().getPath().contextPath().value() + this.path;
		return ReactiveCsrfTokenLookup.of(exchange)
			.map(Optional::of)
			.defaultIfEmpty(Optional.empty())
			.map((csrf) -> DashboardResponses.page(DashboardPage.render(base,
					Overview.of(this.sampler, this.actions.isWritable()), csrf.orElse(null))));
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
