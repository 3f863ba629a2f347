package io.github.delayqueue.sample;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.github.delayqueue.build.JsonTree;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.util.TestSocketUtils;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The README's walk-through of the sample, as written: every {@code curl} line of its block is sent to the sample
 * (started on a free port, with its own Redis as the README runs it, and a payment timeout of a few seconds rather
 * than ten), and each answer is checked against the {@code # {...}} comment that follows the line: every field the
 * comment gives in full ({@code "status":"PAID"}, not {@code "id":"2357ff45-…"}) must be in the answer, and in a list,
 * each object the comment shows must be one of the answer's elements. A line {@code BOB=$(curl … | tee /dev/stderr |
 * sed -E 's/…/\1/')} keeps in {@code BOB} what its sed expression takes from the answer, which must be the id of the
 * order created, and {@code $BOB} in a later line's URL is that id. A read whose answer is not there yet (the timeout
 * has not fired) is asked again until a deadline.
 * <p>
 * OrderTimeoutEndToEndTests covers the same behaviour with the production timeout and the test kit; this test keeps
 * the README's lines true.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = "sample.orders.payment-timeout=" + ReadmeWalkThroughTests.PAYMENT_TIMEOUT)
class ReadmeWalkThroughTests {

	static final String PAYMENT_TIMEOUT = "5s";

	private static final int REDIS_PORT = TestSocketUtils.findAvailableTcpPort();

	private static final Pattern FIELD = Pattern
		.compile("\"([A-Za-z]+)\":(\"(?:[^\"\\\\]|\\\\.)*\"|-?[0-9]+(?:\\.[0-9]+)?|true|false|null)");

	private static final Pattern OBJECT = Pattern.compile("\\{[^{}]*\\}");

	/** {@code NAME=$(curl ... | tee /dev/stderr | sed -E 's/pattern/\1/')}: NAME keeps the pattern's first group. */
	private static final Pattern KEPT = Pattern
		.compile("([A-Z]+)=\\$\\((curl .*) \\| tee /dev/stderr \\| sed -E 's/(.*)/\\\\1/'\\)");

	private static final Pattern VARIABLE = Pattern.compile("\\$([A-Z]+)");

	private final HttpClient client = HttpClient.newHttpClient();


	@DynamicPropertySource
	static void redis(DynamicPropertyRegistry registry) {
		registry.add("spring.data.redis.host", () -> "localhost");
		registry.add("spring.data.redis.port", () -> REDIS_PORT);
	}

	@LocalServerPort
	private int port;

	@Test
	void theReadmesCurlLinesGiveTheAnswersItShows() throws IOException {
		List<Step> steps = steps(Files.readAllLines(Path.of("..", "README.md")));
		assertThat(steps).as("the README's curl lines").hasSizeGreaterThanOrEqualTo(6);
		assertThat(steps).filteredOn((step) -> step.expected() != null).hasSizeGreaterThanOrEqualTo(5);
		Map<String, String> variables = new HashMap<>();
		for (Step step : steps) {
			if (step.method().equals("GET")) {
				// a read may come before what it shows has happened (the timeout fires after PAYMENT_TIMEOUT)
				await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200))
					.untilAsserted(() -> check(step, send(step, variables)));
			}
			else {
				Answer answer = send(step, variables);
				check(step, answer);
				if (step.variable() != null) {
					String kept = step.kept().matcher(answer.body()).replaceFirst("$1");   // as sed would
					assertThat(kept).as("README line " + step.line() + ": what " + step.variable() + " keeps")
						.isEqualTo(answer.json().get("id").asString());
					variables.put(step.variable(), kept);
				}
			}
		}
		assertThat(variables).containsOnlyKeys("ALICE", "BOB");
	}

	private void check(Step step, Answer answer) {
		String where = "README line " + step.line() + ": " + step.curl() + "\n  answered " + answer.status() + " "
				+ answer.body();
		if (step.expected() == null) {
			assertThat(answer.status()).as(where).isBetween(200, 299);
			return;
		}
		Matcher status = Pattern.compile("\"status\":(\\d{3})").matcher(step.expected());
		if (status.find()) {
			assertThat(answer.status()).as(where).isEqualTo(Integer.parseInt(status.group(1)));
		}
		else {
			assertThat(answer.status()).as(where).isBetween(200, 299);
		}
		if (step.expected().startsWith("[")) {
			assertThat(answer.json().isArray()).as(where).isTrue();
			List<String> elements = new ArrayList<>();
			answer.json().forEach((element) -> elements.add(element.toString()));
			Matcher object = OBJECT.matcher(step.expected());
			int objects = 0;
			while (object.find()) {
				List<String> fields = fields(object.group());
				assertThat(elements).as(where + "\n  an element with " + fields)
					.anySatisfy((element) -> assertThat(element).contains(fields));
				objects++;
			}
			assertThat(objects).as(where).isPositive();
		}
		else {
			List<String> fields = fields(step.expected());
			assertThat(fields).as(where).isNotEmpty();
			assertThat(answer.body()).as(where).contains(fields);   // as the server wrote it (42.50 stays 42.50)
		}
	}

	/** The fields a comment gives in full, as the answer's compact JSON writes them. */
	private static List<String> fields(String comment) {
		List<String> fields = new ArrayList<>();
		Matcher field = FIELD.matcher(comment);
		while (field.find()) {
			if (!field.group(2).contains("…")) {
				fields.add("\"" + field.group(1) + "\":" + field.group(2));
			}
		}
		return fields;
	}

	private Answer send(Step step, Map<String, String> variables) {
		Matcher variable = VARIABLE.matcher(step.path());
		StringBuilder path = new StringBuilder();
		while (variable.find()) {
			String id = variables.get(variable.group(1));
			assertThat(id).as("README line " + step.line() + ": no line before sets " + variable.group(1)).isNotNull();
			variable.appendReplacement(path, id);
		}
		variable.appendTail(path);
		HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://localhost:" + this.port + path));
		step.headers().forEach(request::header);
		request.method(step.method(), (step.body() != null) ? HttpRequest.BodyPublishers.ofString(step.body())
				: HttpRequest.BodyPublishers.noBody());
		try {
			HttpResponse<String> response = this.client.send(request.build(), HttpResponse.BodyHandlers.ofString());
			JsonTree json = response.body().isEmpty() ? null : JsonTree.parse(response.body());
			return new Answer(response.statusCode(), response.body(), json);
		}
		catch (IOException ex) {
			throw new IllegalStateException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	/** The curl lines of the README's walk-through block, each with the answer comment that follows it. */
	static List<Step> steps(List<String> readme) {
		int start = -1;
		for (int i = 0; i < readme.size() && start < 0; i++) {
			Matcher kept = KEPT.matcher(readme.get(i));
			String curl = kept.matches() ? kept.group(2) : readme.get(i);
			if (curl.startsWith("curl -s -X POST localhost:8080/orders")) {
				start = i;
			}
		}
		assertThat(start).as("the README's walk-through (a block of curl lines against localhost:8080/orders)")
			.isNotNegative();
		while (!readme.get(start - 1).startsWith("```")) {
			start--;
		}
		List<Step> steps = new ArrayList<>();
		for (int i = start; i < readme.size() && !readme.get(i).startsWith("```"); i++) {
			String line = readme.get(i);
			Matcher kept = KEPT.matcher(line);
			if (line.startsWith("curl ") || kept.matches()) {
				String next = (i + 1 < readme.size()) ? readme.get(i + 1) : "";
				String expected = (next.startsWith("# {") || next.startsWith("# [")) ? next.substring(2) : null;
				Step step = Step.parse(kept.matches() ? kept.group(2) : line, i + 1, expected);
				steps.add(kept.matches() ? step.keeping(kept.group(1), Pattern.compile(kept.group(3))) : step);
			}
		}
		return steps;
	}

	record Step(String curl, int line, String method, String path, Map<String, String> headers, String body,
			String expected, String variable, Pattern kept) {

		static Step parse(String curl, int line, String expected) {
			List<String> words = words(curl);
			String method = null;
			String url = null;
			String body = null;
			Map<String, String> headers = new HashMap<>();
			for (int i = 1; i < words.size(); i++) {
				switch (words.get(i)) {
					case "-s" -> {
					}
					case "-X" -> method = words.get(++i);
					case "-d" -> body = words.get(++i);
					case "-H" -> {
						String[] header = words.get(++i).split(":\\s*", 2);
						headers.put(header[0], header[1]);
					}
					default -> {
						assertThat(words.get(i)).as("README line " + line + ": a curl option this test does not know")
							.doesNotStartWith("-");
						url = words.get(i);
					}
				}
			}
			assertThat(url).as("README line " + line + ": the URL").startsWith("localhost:8080/");
			if (method == null) {
				method = (body != null) ? "POST" : "GET";
			}
			return new Step(curl, line, method, url.substring("localhost:8080".length()), headers, body, expected, null,
					null);
		}

		/** This step, with the shell variable that keeps what {@code kept}'s first group finds in the answer. */
		Step keeping(String variable, Pattern kept) {
			return new Step(this.curl, this.line, this.method, this.path, this.headers, this.body, this.expected,
					variable, kept);
		}

		/** A shell line's words, with single-quoted words as they are. */
		private static List<String> words(String line) {
			List<String> words = new ArrayList<>();
			Matcher word = Pattern.compile("'([^']*)'|(\\S+)").matcher(line);
			while (word.find()) {
				words.add((word.group(1) != null) ? word.group(1) : word.group(2));
			}
			return words;
		}

	}

	record Answer(int status, String body, JsonTree json) {
	}

}
