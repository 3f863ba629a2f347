package io.github.delayqueue.benchmarks;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * What the dashboard's page and its API answer in, over HTTP, with a topic of the production-size scenario waiting:
 * a Spring Boot application of the starter, Spring MVC and the dashboard (as a user runs it, without Spring Security)
 * on a port of its own against the benchmark's Redis, asked by a plain HTTP client on loopback, one request at a
 * time. Each figure is the whole request: HTTP, the controller, its Redis calls, JSON.
 */
final class DashboardTimings implements AutoCloseable {

	private static final String BASE = "/delayqueue";

	/** The untimed requests before each figure's. */
	private static final int WARM_UP = 20;

	private final ConfigurableApplicationContext context;

	private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

	private final String root;

	/**
	 * Starts the application.
	 * @param host Redis's host
	 * @param port Redis's port
	 */
	DashboardTimings(String host, int port) {
		this.context = new SpringApplicationBuilder(Application.class).web(WebApplicationType.SERVLET)
			.logStartupInfo(false)
			.properties("server.port=0", "server.address=127.0.0.1", "spring.data.redis.host=" + host,
					"spring.data.redis.port=" + port, "spring.main.banner-mode=off",
					"logging.level.root=warn")
			.run();
		int serverPort = ((WebServerApplicationContext) this.context).getWebServer().getPort();
		this.root = "http://127.0.0.1:" + serverPort + BASE;
	}

	/**
	 * Times the page and each read of the API the page makes for a topic, each {@code samples} times (after
	 * {@link #WARM_UP} untimed requests each, for the JIT), and returns their latencies by name, in µs.
	 * @param topic the topic the page shows
	 * @param anId the id of a waiting message of it (the message view)
	 * @param samples the requests timed per figure
	 * @return the latencies of each request, by a name of the request
	 */
	Map<String, Samples.Summary> time(String topic, String anId, int samples) {
		String api = "/api/topics/" + encode(topic);
		Map<String, String> paths = new LinkedHashMap<>();
		paths.put("page", "");
		paths.put("overview", "/api/overview");
		paths.put("timeline, an hour", api + "/timeline?seconds=3600");
		paths.put("timeline, a day", api + "/timeline?seconds=86400");
		paths.put("timeline, a week", api + "/timeline?seconds=604800");
		paths.put("waiting, first page", api + "/waiting?limit=100");
		paths.put("one message", api + "/message?id=" + encode(anId));
		paths.put("dead letters, first page", api + "/dead?limit=100");
		Map<String, Samples.Summary> latencies = new LinkedHashMap<>();
		paths.forEach((name, path) -> {
			for (int i = 0; i < WARM_UP; i++) {
				get(path);
			}
			Samples samplesOf = new Samples();
			for (int i = 0; i < samples; i++) {
				long begin = System.nanoTime();
				get(path);
				samplesOf.add((System.nanoTime() - begin) / 1000);
			}
			latencies.put(name, samplesOf.summary());
		});
		return latencies;
	}

	private void get(String path) {
		HttpRequest request = HttpRequest.newBuilder(URI.create(this.root + path)).timeout(Duration.ofMinutes(1)).build();
		try {
			HttpResponse<String> response = this.client.send(request, HttpResponse.BodyHandlers.ofString());
			if (response.statusCode() != 200) {
				throw new IllegalStateException("GET " + path + " answered " + response.statusCode() + ": "
						+ response.body());
			}
		}
		catch (IOException ex) {
			throw new IllegalStateException("GET " + path + " failed", ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted", ex);
		}
	}

	private static String encode(String text) {
		return URLEncoder.encode(text, StandardCharsets.UTF_8);
	}

	@Override
	public void close() {
		this.context.close();
	}

	/** The application: the starter's and the dashboard's auto-configuration, Spring MVC on Tomcat. */
	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class Application {

	}

}
