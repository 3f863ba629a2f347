package io.github.delayqueue.dashboard.web;

import java.io.IOException;
import java.net.CookieManager;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.github.delayqueue.build.JsonTree;


/** Real HTTP calls to a running application, keeping its cookies (a session), with JSON answers. */
final class Http {

	/** The session's cookies, kept across calls. */
	private final CookieManager cookies = new CookieManager();

	private final String base;

	private final Map<String, String> headers = new LinkedHashMap<>();

	Http(int port) {
		this.base = "http://localhost:" + port;
	}

	/** Sends these credentials with every request (HTTP basic). */
	Http as(String user, String password) {
		this.headers.put("Authorization", "Basic "
				+ Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8)));
		return this;
	}

	Response get(String path) {
		return send("GET", path, null, Map.of());
	}

	Response post(String path) {
		return send("POST", path, null, Map.of());
	}

	Response post(String path, String json, Map<String, String> extraHeaders) {
		return send("POST", path, json, extraHeaders);
	}

	Response delete(String path) {
		return send("DELETE", path, null, Map.of());
	}

	Response send(String method, String path, String json, Map<String, String> extraHeaders) {
		HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(this.base + path));
		this.headers.forEach(request::header);
		extraHeaders.forEach(request::header);
		if (json != null) {
			request.header("Content-Type", "application/json");
		}
		request.method(method, (json != null) ? HttpRequest.BodyPublishers.ofString(json)
				: HttpRequest.BodyPublishers.noBody());
		try {
			// a connection of its own for each call, over HTTP/1.1 (no h2c upgrade): the JDK's client, reusing a kept-alive
			// connection to Reactor Netty, has been seen to send a request that the server never read, and then wait
			HttpClient client = HttpClient.newBuilder()
				.version(HttpClient.Version.HTTP_1_1)
				.cookieHandler(this.cookies)
				.build();
			HttpResponse<String> response = client.send(request.build(), HttpResponse.BodyHandlers.ofString());
			return new Response(response.statusCode(), response.body(),
					response.headers().firstValue("Content-Type").orElse(""), response.headers());
		}
		catch (IOException ex) {
			throw new IllegalStateException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	record Response(int status, String body, String contentType, java.net.http.HttpHeaders headers) {

		/** The first value of a header, or {@code null}. */
		String header(String name) {
			return this.headers.firstValue(name).orElse(null);
		}

		JsonTree json() {
			if (this.body.isEmpty()) {
				throw new IllegalStateException("No JSON: answered " + this.status + " with no body");
			}
			return JsonTree.parse(this.body);
		}

		/** The value of a data attribute of the page's main element. */
		String data(String name) {
			Matcher matcher = Pattern.compile("data-" + name + "=\"([^\"]*)\"").matcher(this.body);
			return matcher.find() ? matcher.group(1) : null;
		}

	}

}
