package io.github.delayqueue.dashboard.web;

import java.time.Instant;
import java.util.Locale;

import io.github.delayqueue.dashboard.Overview;
import io.github.delayqueue.dashboard.TopicOverview;
import org.jspecify.annotations.Nullable;

import org.springframework.web.util.HtmlUtils;

/**
 * Renders the dashboard's page: the topics as they were last sampled, and the frame the script fills in (topic
 * details, timeline, look-up, waiting messages, dead letters, recurring schedules). The script and the style sheet
 * are served beside it; no script runs inline, so a strict content security policy fits.
 */
final class DashboardPage {

	private static final String WRITES_CLOSED = "Read-only: open writes with management.endpoint.delayqueue.access="
			+ "unrestricted (or delayqueue.dashboard.access=unrestricted)";

	private DashboardPage() {
	}

	/**
	 * The page.
	 * @param base the dashboard's path, with the servlet context path
	 * @param overview what to show first
	 * @param csrf the CSRF token to send with writes, or {@code null}
	 * @return the HTML
	 */
	static String render(String base, Overview overview, CsrfTokenLookup.@Nullable Token csrf) {
		StringBuilder html = new StringBuilder(8192);
		html.append("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
			.append("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
			.append("<title>delayqueue dashboard</title>\n")
			.append("<link rel=\"stylesheet\" href=\"").append(attr(base)).append("/assets/dashboard.css\">\n")
			.append("<script defer src=\"").append(attr(base)).append("/assets/dashboard.js\"></script>\n")
			.append("</head>\n<body>\n");
		html.append("<main id=\"dashboard\" data-api=\"").append(attr(base)).append("/api\" data-refresh-ms=\"")
			.append(overview.refreshMillis()).append("\" data-writable=\"").append(overview.writable()).append('"');
		if (csrf != null) {
			html.append(" data-csrf-header=\"").append(attr(csrf.headerName())).append("\" data-csrf-token=\"")
				.append(attr(csrf.value())).append('"');
		}
		html.append(">\n");
		header(html, overview);
		topics(html, overview);
		detail(html, overview.writable());
		recurring(html);
		html.append("<footer>Counts come from Redis and cover every instance; rates and lateness come from this ")
			.append("instance's meters. Sampled every ").append(seconds(overview.refreshMillis()))
			.append(" in the background; nothing here reads a whole topic.</footer>\n");
		html.append("</main>\n</body>\n</html>\n");
		return html.toString();
	}

	private static void header(StringBuilder html, Overview overview) {
		html.append("<header>\n<h1>delayqueue</h1>\n");
		if (overview.writable()) {
			html.append("<span id=\"access\" class=\"badge writable\">writes open</span>\n");
		}
		else {
			html.append("<span id=\"access\" class=\"badge read-only\" title=\"").append(attr(WRITES_CLOSED))
				.append("\">read-only</span>\n");
		}
		html.append("<span id=\"status\">");
		Instant sampledAt = overview.sampledAt();
		html.append((sampledAt != null) ? "sampled at " + text(sampledAt.toString()) : "not sampled yet");
		html.append("</span>\n<span id=\"failure\" class=\"failure\">");
		if (overview.failure() != null) {
			html.append(text(overview.failure()));
		}
		html.append("</span>\n</header>\n");
	}

	private static void topics(StringBuilder html, Overview overview) {
		html.append("<section id=\"topics\">\n<h2>Topics</h2>\n<table id=\"topic-table\">\n<thead><tr>")
			.append("<th>Topic</th><th class=\"num\">Waiting</th><th class=\"num\">Ready</th>")
			.append("<th class=\"num\">In flight</th><th class=\"num\">Retrying</th><th class=\"num\">Dead</th>")
			.append("<th>Trend</th><th class=\"num\">Scheduled/s</th><th class=\"num\">Delivered/s</th>")
			.append("<th class=\"num\">Lateness p50 / p99</th><th>Next due</th><th>State</th><th></th>")
			.append("</tr></thead>\n<tbody id=\"topic-rows\">\n");
		for (TopicOverview topic : overview.topics()) {
			html.append("<tr id=\"topic-row-").append(attr(topic.topic())).append("\" data-topic=\"")
				.append(attr(topic.topic())).append("\"><td class=\"topic-name\">").append(text(topic.topic()))
				.append("</td>");
			cell(html, "waiting", topic.waiting());
			cell(html, "ready", topic.ready());
			cell(html, "inflight", topic.inflight());
			cell(html, "retrying", topic.retrying());
			cell(html, "dead", topic.dead());
			html.append("<td class=\"trend\"></td><td class=\"num scheduled-rate\"></td>")
				.append("<td class=\"num delivered-rate\"></td><td class=\"num lateness\"></td>")
				.append("<td class=\"next-due\"></td><td class=\"state\">")
				.append(topic.paused() ? "paused" : "running").append("</td><td></td></tr>\n");
		}
		if (overview.topics().isEmpty()) {
			html.append("<tr class=\"empty\"><td colspan=\"13\">No topic yet: schedule a message or start a ")
				.append("listener.</td></tr>\n");
		}
		html.append("</tbody>\n</table>\n<p class=\"note legend\">Trend: <span class=\"key pending\">pending ")
			.append("(waiting + ready)</span> <span class=\"key inflight\">in flight</span> ")
			.append("<span class=\"key dead\">dead</span>. Retrying messages are also counted as waiting, ready or in ")
			.append("flight.</p>\n<p id=\"unsampled\" class=\"note\"></p>\n</section>\n");
	}

	private static void cell(StringBuilder html, String name, long value) {
		html.append("<td class=\"num ").append(name).append("\">").append(value).append("</td>");
	}

	private static void detail(StringBuilder html, boolean writable) {
		String disabled = writable ? "" : " disabled title=\"" + attr(WRITES_CLOSED) + "\"";
		html.append("<section id=\"topic-detail\" hidden>\n<h2>Topic <span id=\"detail-topic\"></span> ")
			.append("<span id=\"detail-state\" class=\"badge\"></span></h2>\n")
			.append("<div class=\"controls\">\n<button type=\"button\" id=\"pause\" class=\"write\"").append(disabled)
			.append(">Pause</button>\n<button type=\"button\" id=\"resume\" class=\"write\"").append(disabled)
			.append(">Resume</button>\n<form id=\"limits-form\">\n<label>Rate limit /s <input id=\"limit-rate\" ")
			.append("type=\"number\" min=\"0\" step=\"any\" placeholder=\"none\"></label>\n")
			.append("<label>Max in flight <input id=\"limit-cap\" type=\"number\" min=\"0\" step=\"1\" ")
			.append("placeholder=\"none\"></label>\n<button type=\"submit\" id=\"set-limits\" class=\"write\"")
			.append(disabled).append(">Set limits</button>\n</form>\n</div>\n")
			.append("<p id=\"action-result\" class=\"note\" role=\"status\"></p>\n");
		html.append("<h3>When waiting messages fall due</h3>\n<div class=\"controls\"><label>Next ")
			.append("<select id=\"horizon\"><option value=\"60\">minute</option>")
			.append("<option value=\"600\">10 minutes</option><option value=\"3600\" selected>hour</option>")
			.append("<option value=\"21600\">6 hours</option><option value=\"86400\">day</option>")
			.append("<option value=\"604800\">week</option></select></label> ")
			.append("<span id=\"timeline-note\" class=\"note\"></span></div>\n")
			.append("<div id=\"timeline\" class=\"timeline\"></div>\n");
		html.append("<h3>Groups with the most waiting <span id=\"groups-note\" class=\"note\"></span></h3>\n")
			.append("<table id=\"groups-table\"><thead><tr><th>Group</th><th class=\"num\">Waiting</th>")
			.append("<th class=\"num\">In flight</th><th class=\"num\">Weight</th><th>State</th></tr></thead>")
			.append("<tbody id=\"groups-rows\"></tbody></table>\n");
		html.append("<h3>Look up a message</h3>\n<form id=\"lookup-form\" class=\"controls\">")
			.append("<input id=\"lookup-id\" placeholder=\"message id\" size=\"40\" required>")
			.append("<button type=\"submit\" id=\"lookup\">Look up</button></form>\n")
			.append("<div id=\"lookup-result\"></div>\n");
		html.append("<h3>Waiting, by due time</h3>\n<table id=\"waiting-table\"><thead><tr><th>Id</th>")
			.append("<th>Due</th><th>State</th><th class=\"num\">Attempts</th><th>Last error</th><th>Payload</th>")
			.append("</tr></thead><tbody id=\"waiting-rows\"></tbody></table>\n<div class=\"controls\">")
			.append("<button type=\"button\" id=\"waiting-first\">First page</button>")
			.append("<button type=\"button\" id=\"waiting-next\">Next page</button></div>\n");
		html.append("<h3>Dead letters <span id=\"dead-total\" class=\"note\"></span></h3>\n<div class=\"controls\">")
			.append("<button type=\"button\" id=\"replay-all\" class=\"write\"").append(disabled)
			.append(">Replay all</button><button type=\"button\" id=\"purge-all\" class=\"write danger\"")
			.append(disabled).append(">Purge all</button></div>\n")
			.append("<table id=\"dead-table\"><thead><tr><th>Id</th><th>Died</th><th class=\"num\">Attempts</th>")
			.append("<th>Last error</th><th>Payload</th><th></th></tr></thead><tbody id=\"dead-rows\"></tbody>")
			.append("</table>\n<div class=\"controls\"><button type=\"button\" id=\"dead-previous\">Previous</button>")
			.append("<button type=\"button\" id=\"dead-next\">Next</button></div>\n</section>\n");
	}

	private static void recurring(StringBuilder html) {
		html.append("<section id=\"recurring\">\n<h2>Recurring schedules</h2>\n<table id=\"recurring-table\">")
			.append("<thead><tr><th>Name</th><th>Topic</th><th>Schedule</th><th>State</th><th>Last tick</th>")
			.append("<th>Next tick</th></tr></thead><tbody id=\"recurring-rows\"></tbody></table>\n</section>\n");
	}

	private static String seconds(long millis) {
		return (millis % 1000 == 0) ? (millis / 1000) + " s" : String.format(Locale.ROOT, "%.1f s", millis / 1000.0);
	}

	private static String text(String value) {
		return HtmlUtils.htmlEscape(value, "UTF-8");
	}

	private static String attr(String value) {
		return HtmlUtils.htmlEscape(value, "UTF-8");
	}

}
