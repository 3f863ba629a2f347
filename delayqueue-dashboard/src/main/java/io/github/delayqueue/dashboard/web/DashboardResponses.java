package io.github.delayqueue.dashboard.web;

import java.nio.charset.StandardCharsets;
import java.time.Duration;

import org.springframework.core.io.ClassPathResource;
import org.springframework.core.io.Resource;
import org.springframework.http.CacheControl;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;

/**
 * The page's and the assets' responses, the same on Spring MVC and WebFlux.
 */
final class DashboardResponses {

	/** The asset names the page's controllers serve. */
	static final String ASSET_NAME = "{name:dashboard\\.(?:js|css)}";

	private static final String ASSETS = "META-INF/delayqueue-dashboard/";

	private DashboardResponses() {
	}

	/**
	 * The page, never cached (it carries a CSRF token and the last sample).
	 * @param html the rendered page
	 * @return the response
	 */
	static ResponseEntity<String> page(String html) {
		return ResponseEntity.ok()
			.cacheControl(CacheControl.noStore())
			.contentType(new MediaType(MediaType.TEXT_HTML, StandardCharsets.UTF_8))
			.body(html);
	}

	/**
	 * The script or the style sheet, cached for a few minutes.
	 * @param name {@code dashboard.js} or {@code dashboard.css}
	 * @return the response
	 */
	static ResponseEntity<Resource> asset(String name) {
		MediaType type = name.endsWith(".js") ? MediaType.parseMediaType("text/javascript;charset=UTF-8")
				: MediaType.parseMediaType("text/css;charset=UTF-8");
		return ResponseEntity.ok()
			.cacheControl(CacheControl.maxAge(Duration.ofMinutes(5)))
			.contentType(type)
			.body(new ClassPathResource(ASSETS + name, DashboardResponses.class.getClassLoader()));
	}

}
