package io.github.delayqueue.sample;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

import io.github.delayqueue.build.JsonTree;

/** Real HTTP calls to the running sample, with JSON bodies. */
final class HttpJson {

	private final HttpClient client = HttpClient.newHttpClient();

	private final String base;

	HttpJson(int port) {
		this.base = "http://localhost:" + port;
	}

	Response post(String path, String json) {
		HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(this.base + path));
		request.header("Content-Type", "application/json");
		request.POST((json != null) ? HttpRequest.BodyPublishers.ofString(json) : HttpRequest.BodyPublishers.noBody());
		return send(request.build());
	}

	Response get(String path) {
		return send(HttpRequest.newBuilder(URI.create(this.base + path)).GET().build());
	}

	private Response send(HttpRequest request) {
		try {
			HttpResponse<String> response = this.client.send(request, HttpResponse.BodyHandlers.ofString());
			JsonTree body = response.body().isEmpty() ? null : JsonTree.parse(response.body());
			return new Response(response.statusCode(), body, response.headers().firstValue("Location").orElse(null));
		}
		catch (IOException ex) {
			throw new IllegalStateException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	record Response(int status, JsonTree body, String location) {

		String text(String field) {
			return this.body.get(field).asString();
		}

	}

}
