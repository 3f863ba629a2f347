package io.github.delayqueue.sample;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Predicate;

import io.github.delayqueue.DelayedQueue;
import io.github.delayqueue.DeliveredMessage;
import io.github.delayqueue.ScheduleRequest;
import io.github.delayqueue.annotation.DelayedListener;
import io.github.delayqueue.build.redis.TestRedis;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.condition.EnabledIf;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The sample's dashboard in a real browser: the system's headless Chromium, driven through its chromedriver by
 * Selenium (no driver is downloaded). Skipped where the Debian packages {@code chromium} and {@code chromium-driver}
 * are not installed ({@code .ci/run} installs them).
 * <p>
 * The last test saves a screenshot to {@code target/dashboard.png}; with {@code -Ddashboard.screenshot=<file>} also
 * there (the README's is {@code docs/dashboard.png}).
 */
@DirtiesContext
@EnabledIf(value = "browserInstalled", disabledReason = "needs Chromium and its driver: install the Debian packages "
		+ "chromium and chromium-driver (apt-get install chromium chromium-driver), or name them with "
		+ "-Ddashboard.chromium and -Ddashboard.chromedriver")
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "sample.orders.payment-timeout=5s", "delayqueue.wake-up.poll-interval=200ms",
				"delayqueue.dashboard.sample-interval=300ms", "management.endpoint.delayqueue.access=unrestricted" })
class DashboardBrowserTests {

	private static final String CHROMEDRIVER = System.getProperty("dashboard.chromedriver", "/usr/bin/chromedriver");

	private static final String CHROMIUM = System.getProperty("dashboard.chromium", "/usr/bin/chromium");

	private static final Duration WAIT = Duration.ofSeconds(20);

	// killed when the JVM exits, after the context (closed at the end of the class) has stopped using it
	static final TestRedis redis = TestRedis.builder().build();

	private static WebDriver browser;

	@DynamicPropertySource
	static void redisProperties(DynamicPropertyRegistry registry) {
		TestRedisProperties.register(registry, redis);
	}

	@LocalServerPort
	private int port;

	@Autowired
	private DelayedQueue queue;

	@Autowired
	private Reminders reminders;

	static boolean browserInstalled() {
		return Files.isExecutable(Path.of(CHROMEDRIVER)) && Files.isExecutable(Path.of(CHROMIUM));
	}

	@BeforeAll
	static void openBrowser() {
		// an explicit driver and browser: Selenium Manager never runs, nothing is downloaded
		ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(new File(CHROMEDRIVER))
			.usingAnyFreePort()
			.build();
		ChromeOptions options = new ChromeOptions();
		options.setBinary(CHROMIUM);
		options.addArguments("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
				"--window-size=1400,2100", "--force-device-scale-factor=1", "--lang=en-US");
		browser = new ChromeDriver(service, options);
	}

	@AfterAll
	static void closeBrowser() {
		if (browser != null) {
			browser.quit();
		}
	}

	@Test
	@Order(1)
	void anOrdersTimeoutWaitsWhileItsTopicIsPausedAndFiresOnResume() {
		HttpJson http = new HttpJson(this.port);
		open("order-timeout");
		awaitText(By.id("detail-state"), "running"::equals);

		browser.findElement(By.id("pause")).click();
		awaitText(By.id("detail-state"), "paused"::equals);
		awaitText(By.cssSelector("#topic-row-order-timeout td.state"), (text) -> text.contains("paused"));

		String id = http.post("/orders", "{\"customer\": \"erin\", \"amount\": 12.00}").text("id");
		// the order's timeout, looked up by the order id: waiting, due in a few seconds
		browser.findElement(By.id("lookup-id")).sendKeys(id);
		browser.findElement(By.id("lookup")).click();
		awaitText(By.cssSelector("#lookup-result dl.message .field-state"), "WAITING"::equals);
		assertThat(browser.findElement(By.cssSelector("#lookup-result .field-due")).getText()).contains("Z)");
		awaitText(By.cssSelector("#waiting-rows tr[data-id='" + id + "'] td.id"), id::equals);
		awaitText(By.cssSelector("#topic-row-order-timeout td.next-due"), (text) -> !text.equals("–"));

		// due now, and still not delivered: the page counts it ready while the order stays unpaid
		awaitText(By.cssSelector("#topic-row-order-timeout td.ready"), "1"::equals);
		await().during(Duration.ofSeconds(1)).atMost(WAIT).until(() -> status(http, id).equals("PENDING_PAYMENT"));
		assertThat(text(By.cssSelector("#topic-row-order-timeout td.ready"))).isEqualTo("1");

		browser.findElement(By.id("resume")).click();
		await().atMost(WAIT).until(() -> status(http, id).equals("CANCELLED"));
		awaitText(By.id("detail-state"), "running"::equals);
		awaitText(By.cssSelector("#topic-row-order-timeout td.ready"), "0"::equals);
		awaitText(By.cssSelector("#topic-row-order-timeout td.delivered-rate"), (text) -> !text.equals("–")
				&& !text.equals("0"));
		browser.findElement(By.id("lookup")).click();
		awaitText(By.cssSelector("#lookup-result .not-found"), (text) -> text.startsWith("No message " + id));
	}

	@Test
	@Order(2)
	void aDeadLetterReplayedFromThePageIsDelivered() {
		this.reminders.failing.set(true);
		this.queue.schedule("reminders", "r-1", "call the plumber", Duration.ZERO);
		open("reminders");
		String row = "#dead-rows tr[data-id='r-1']";
		awaitText(By.cssSelector(row + " td.error"),
				(text) -> text.equals("java.lang.IllegalStateException: mail server down"));
		awaitText(By.cssSelector("#topic-row-reminders td.dead"), "1"::equals);

		this.reminders.failing.set(false);
		click(By.cssSelector(row + " button.replay"));
		await().atMost(WAIT).until(() -> this.reminders.delivered.contains("r-1"));
		awaitText(By.id("action-result"), "Replayed r-1 (1)"::equals);
		awaitText(By.cssSelector("#topic-row-reminders td.dead"), "0"::equals);
		awaitText(By.cssSelector("#dead-rows tr.empty"), "No dead letters."::equals);
		awaitText(By.cssSelector("#topic-row-reminders td.delivered-rate"), (text) -> !text.equals("–")
				&& !text.equals("0"));
	}

	@Test
	@Order(3)
	void theReadmesScreenshot() throws IOException {
		HttpJson http = new HttpJson(this.port);
		for (int i = 0; i < 3; i++) {
			http.post("/orders", "{\"customer\": \"customer-" + i + "\", \"amount\": 9.99}");
		}
		// reminders over the next hour, more of them in its second quarter
		for (int i = 0; i < 600; i++) {
			long seconds = 120 + (i * 37L) % 3300 + ((i % 3 == 0) ? 0 : (i * 11L) % 600);
			this.queue.schedule(ScheduleRequest.builder("reminders", "reminder " + i)
				.id("reminder-" + i)
				.delay(Duration.ofSeconds(seconds))
				.build());
		}
		this.reminders.failing.set(true);
		this.queue.schedule("reminders", "r-2", "renew the certificate", Duration.ZERO);
		open("reminders");
		awaitText(By.cssSelector("#dead-rows tr[data-id='r-2'] td.error"), (text) -> text.contains("mail server down"));
		awaitText(By.cssSelector("#topic-row-reminders td.waiting"), "600"::equals);
		await().atMost(WAIT).ignoreExceptions().until(() -> browser.findElements(By.cssSelector("#timeline .bucket"))
			.stream()
			.anyMatch((bucket) -> !"0".equals(bucket.getAttribute("data-count"))));
		awaitText(By.cssSelector("#recurring-rows tr[data-schedule='cancelled-orders-report'] td.next-tick"),
				(text) -> text.startsWith("in "));

		byte[] png = ((ChromeDriver) browser).getScreenshotAs(OutputType.BYTES);
		assertThat(png).hasSizeGreaterThan(10_000);
		Path target = Path.of("target", "dashboard.png");
		// the other Boot lines' runs work from another folder, which may have no target yet
		Files.createDirectories(target.getParent());
		Files.write(target, png);
		String copy = System.getProperty("dashboard.screenshot");
		if (copy != null && !copy.isBlank()) {
			Files.copy(target, Path.of(copy), StandardCopyOption.REPLACE_EXISTING);
		}
	}

	private void open(String topic) {
		// a fresh page load even where the address is the one shown already (only the fragment would change)
		browser.get("about:blank");
		browser.get("http://localhost:" + this.port + "/delayqueue#topic=" + topic);
		awaitText(By.id("detail-topic"), topic::equals);
	}

	private static String status(HttpJson http, String id) {
		return http.get("/orders/" + id).text("status");
	}

	private static String text(By by) {
		return browser.findElement(by).getText();
	}

	/** Waits for an element's text; the page redraws itself, so an element may be replaced while it is read. */
	private static void awaitText(By by, Predicate<String> condition) {
		await().atMost(WAIT).ignoreExceptions().until(() -> condition.test(browser.findElement(by).getText()));
	}

	private static void click(By by) {
		await().atMost(WAIT).ignoreExceptions().untilAsserted(() -> {
			WebElement element = browser.findElement(by);
			element.click();
		});
	}

	/**
	 * A listener that fails while told to: its messages go to the dead letters at the first failure.
	 */
	@TestConfiguration(proxyBeanMethods = false)
	static class Reminders {

		final AtomicBoolean failing = new AtomicBoolean();

		final List<String> delivered = new CopyOnWriteArrayList<>();

		@DelayedListener(topic = "reminders", maxAttempts = "1")
		void remind(String text, DeliveredMessage message) {
			if (this.failing.get()) {
				throw new IllegalStateException("mail server down");
			}
			this.delivered.add(message.id());
		}

	}

}
