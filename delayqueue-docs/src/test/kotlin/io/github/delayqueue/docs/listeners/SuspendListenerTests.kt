package io.github.delayqueue.docs.listeners

import io.github.delayqueue.DelayedQueue
import io.github.delayqueue.DelayedQueueAdmin
import io.github.delayqueue.DeliveredMessage
import io.github.delayqueue.MessageState
import io.github.delayqueue.annotation.DelayedListener
import io.github.delayqueue.annotation.DelayedListenerConfigurer
import io.github.delayqueue.autoconfigure.DelayQueueAutoConfiguration
import io.github.delayqueue.config.DelayedListenerEndpointRegistry
import io.github.delayqueue.build.BootLine
import io.github.delayqueue.build.redis.TestRedisExtension
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.delay
import kotlinx.coroutines.flow.Flow
import kotlinx.coroutines.flow.flowOf
import kotlinx.coroutines.withTimeoutOrNull
import org.assertj.core.api.Assertions.assertThat
import org.awaitility.Awaitility.await
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.extension.RegisterExtension
import org.springframework.boot.autoconfigure.AutoConfigurations
import org.springframework.boot.test.context.runner.ApplicationContextRunner
import org.springframework.messaging.handler.annotation.support.DefaultMessageHandlerMethodFactory
import reactor.core.publisher.Mono
import java.time.Duration
import java.util.concurrent.CompletableFuture
import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.CountDownLatch
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicBoolean
import java.util.concurrent.atomic.AtomicInteger
import kotlin.coroutines.cancellation.CancellationException

/**
 * `@DelayedListener` on Kotlin `suspend` functions, awaited like a `Mono`, in a Boot application on a real Redis:
 * one that returns is acknowledged (spring-amqp once never acknowledged them), `Unit` included; one that throws is
 * retried and dead-lettered after its attempts; one past the handler timeout is cancelled; the lease is held while
 * the function is suspended and `asyncConcurrency`, not the threads, bounds how many are; a stop waits for one within
 * the shutdown timeout and past it cancels it and hands its message back; a signature that cannot be awaited fails at
 * start-up.
 */
class SuspendListenerTests {

    companion object {

        @JvmField
        @RegisterExtension
        val redis: TestRedisExtension = TestRedisExtension.create()

        val WAIT: Duration = Duration.ofSeconds(30)

    }

    private val runner = ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(*BootLine.redisAndJackson(DelayQueueAutoConfiguration::class.java)))
        .withPropertyValues("spring.data.redis.host=" + redis.get().host(),
            "spring.data.redis.port=" + redis.get().port(), "spring.data.redis.database=" + redis.get().database(),
            "delayqueue.listener.backoff.delay=10ms", "delayqueue.listener.backoff.max-delay=20ms")

    @Test
    fun aSuspendListenerThatReturnsUnitIsAcknowledged() {
        runner.withBean(SuspendOrderBook::class.java).withBean(OrderTimeouts::class.java).run { context ->
            val queue = context.getBean(DelayedQueue::class.java)
            val orders = context.getBean(SuspendOrderBook::class.java)

            queue.schedule("order-timeout", "order-42", OrderTimeout("order-42"), Duration.ZERO)

            await().atMost(WAIT).until { orders.cancelled.contains("order-42") }
            // acknowledged once the function returned: the message is gone, not redelivered after its lease
            await().atMost(WAIT).until { queue.lookup("order-timeout", "order-42").isEmpty }
            assertThat(orders.cancelled).containsExactly("order-42")
        }
    }

    @Test
    fun theLeaseIsHeldWhileSuspendedAndAsyncConcurrencyBoundsHowManyAreOnOneThread() {
        runner.withBean(GatedListener::class.java).run { context ->
            val queue = context.getBean(DelayedQueue::class.java)
            val listener = context.getBean(GatedListener::class.java)
            for (i in 1..5) {
                queue.schedule("gated", "g-$i", "payload", Duration.ZERO)
            }

            // one handler thread, two suspended at once: the bound, not the thread, stops the third
            await().atMost(WAIT).until { listener.running.get() == 2 }
            val suspended = listener.started.keys.toList()
            assertThat(suspended).hasSize(2)
            suspended.forEach { id ->
                assertThat(queue.lookup("gated", id).map { it.state() }).contains(MessageState.IN_FLIGHT)
            }

            listener.release.complete(Unit)
            await().atMost(WAIT).until { listener.returned.get() == 5 }
            await().atMost(WAIT).until { (1..5).all { queue.lookup("gated", "g-$it").isEmpty } }
            assertThat(listener.maxRunning.get()).isEqualTo(2)
            assertThat(listener.started.values.map { it.get() }).containsOnly(1)
        }
    }

    @Test
    fun aSuspendListenerThatThrowsIsRetriedThenDeadLettered() {
        runner.withBean(FailingListener::class.java).run { context ->
            val queue = context.getBean(DelayedQueue::class.java)
            val admin = context.getBean(DelayedQueueAdmin::class.java)
            val listener = context.getBean(FailingListener::class.java)

            queue.schedule("payments", "p-1", "payload", Duration.ZERO)

            await().atMost(WAIT).until { admin.deadLetters("payments", 0, 10).isNotEmpty() }
            val dead = admin.deadLetters("payments", 0, 10).single()
            assertThat(dead.id()).isEqualTo("p-1")
            assertThat(dead.attempts()).isEqualTo(3)
            // attempts 1 and 2 threw after suspending; the last one threw before: its own exception, unwrapped
            assertThat(dead.error()).contains("IllegalStateException").contains("payment service down (attempt 3)")
                .doesNotContain("InvocationTargetException")
            assertThat(listener.attempts.get()).isEqualTo(3)
        }
    }

    @Test
    fun aSuspendListenerPastTheHandlerTimeoutIsCancelledAndFails() {
        runner.withBean(SlowListener::class.java).run { context ->
            val queue = context.getBean(DelayedQueue::class.java)
            val admin = context.getBean(DelayedQueueAdmin::class.java)
            val listener = context.getBean(SlowListener::class.java)

            queue.schedule("slow", "s-1", "payload", Duration.ZERO)

            assertThat(listener.cancelled.await(WAIT.seconds, TimeUnit.SECONDS)).`as`("the coroutine was cancelled")
                .isTrue()
            await().atMost(WAIT).until { admin.deadLetters("slow", 0, 10).isNotEmpty() }
            assertThat(admin.deadLetters("slow", 0, 10).single().error()).contains("HandlerTimeoutException")
        }
    }

    @Test
    fun aSuspendListenerReturningValuesOrAMonoIsAcknowledged() {
        runner.withBean(ValueListeners::class.java).run { context ->
            val queue = context.getBean(DelayedQueue::class.java)
            val listener = context.getBean(ValueListeners::class.java)

            queue.schedule("value", "v-1", "payload", Duration.ZERO)
            queue.schedule("mono", "m-1", "payload", Duration.ZERO)

            await().atMost(WAIT).until { listener.handled.containsAll(listOf("value v-1 1", "mono m-1 1")) }
            await().atMost(WAIT).until { queue.lookup("value", "v-1").isEmpty && queue.lookup("mono", "m-1").isEmpty }
            assertThat(listener.handled).hasSize(2)
        }
    }

    @Test
    fun aStopWaitsForASuspendedListenerWithinTheShutdownTimeout() {
        runner.withBean(FinishingListener::class.java).run { context ->
            val queue = context.getBean(DelayedQueue::class.java)
            val listener = context.getBean(FinishingListener::class.java)
            val container = context.getBean(DelayedListenerEndpointRegistry::class.java)
                .getListenerContainerForTopic("finishing")!!

            queue.schedule("finishing", "f-1", "payload", Duration.ZERO)
            assertThat(listener.started.await(WAIT.seconds, TimeUnit.SECONDS)).isTrue()
            container.stop()

            // the stop returned after the function did (it resumes 500 ms after it started), and acknowledged it
            assertThat(listener.returned.get()).isTrue()
            assertThat(queue.lookup("finishing", "f-1")).isEmpty()
        }
    }

    @Test
    fun aStopHandsBackASuspendedListenerPastTheShutdownTimeoutCancellingIt() {
        runner.withPropertyValues("delayqueue.listener.shutdown-timeout=300ms").withBean(StuckListener::class.java)
            .run { context ->
                val queue = context.getBean(DelayedQueue::class.java)
                val listener = context.getBean(StuckListener::class.java)
                val container = context.getBean(DelayedListenerEndpointRegistry::class.java)
                    .getListenerContainerForTopic("stuck")!!

                queue.schedule("stuck", "s-2", "payload", Duration.ZERO)
                assertThat(listener.started.await(WAIT.seconds, TimeUnit.SECONDS)).isTrue()
                container.stop()

                assertThat(listener.cancelled.await(WAIT.seconds, TimeUnit.SECONDS)).`as`("the coroutine was cancelled")
                    .isTrue()
                // handed back at once, its attempt counted, not left in flight until its lease ends
                val info = queue.lookup("stuck", "s-2").orElseThrow()
                assertThat(info.state()).isIn(MessageState.WAITING, MessageState.RETRYING)
                assertThat(info.attempts()).isEqualTo(1)
            }
    }

    @Test
    fun aSuspendListenerReturningAFlowFailsAtStartupNamingIt() {
        runner.withBean(FlowListener::class.java).run { context ->
            assertThat(context).hasFailed()
            assertThat(context.startupFailure!!.stackTraceToString()).contains("FlowListener.onMessage")
                .contains("cannot be awaited")
        }
    }

    @Test
    fun aSuspendListenerReturningAFutureFailsAtStartupNamingIt() {
        runner.withBean(FutureListener::class.java).run { context ->
            assertThat(context).hasFailed()
            assertThat(context.startupFailure!!.stackTraceToString()).contains("FutureListener.onMessage")
                .contains("cannot be awaited")
        }
    }

    @Test
    fun aMessageHandlerMethodFactoryThatCannotInvokeSuspendFunctionsFailsAtStartup() {
        runner.withBean(OrderTimeouts::class.java).withBean(SuspendOrderBook::class.java)
            .withBean(DelayedListenerConfigurer::class.java, {
                DelayedListenerConfigurer { registrar ->
                    registrar.setMessageHandlerMethodFactory(DefaultMessageHandlerMethodFactory().apply {
                        afterPropertiesSet()
                    })
                }
            }).run { context ->
                assertThat(context).hasFailed()
                assertThat(context.startupFailure!!.stackTraceToString()).contains("OrderTimeouts")
                    .contains("DelayedListenerMessageHandlerMethodFactory")
            }
    }

    class GatedListener {

        val release = CompletableDeferred<Unit>()
        val running = AtomicInteger()
        val maxRunning = AtomicInteger()
        val returned = AtomicInteger()
        val started = ConcurrentHashMap<String, AtomicInteger>()

        @DelayedListener(topic = "gated", concurrency = "1", asyncConcurrency = "2")
        suspend fun onMessage(payload: String, message: DeliveredMessage) {
            started.computeIfAbsent(message.id()) { AtomicInteger() }.incrementAndGet()
            maxRunning.accumulateAndGet(running.incrementAndGet(), ::maxOf)
            try {
                withTimeoutOrNull(WAIT.toMillis()) { release.await() }
            }
            finally {
                running.decrementAndGet()
                returned.incrementAndGet()
            }
        }

    }

    class FailingListener {

        val attempts = AtomicInteger()

        @DelayedListener(topic = "payments", maxAttempts = "3")
        suspend fun onMessage(payload: String, message: DeliveredMessage) {
            attempts.incrementAndGet()
            if (message.attempt() == 3) {
                throw IllegalStateException("payment service down (attempt 3)")    // before it ever suspends
            }
            delay(10)
            throw IllegalStateException("payment service down (attempt ${message.attempt()})")
        }

    }

    class SlowListener {

        val cancelled = CountDownLatch(1)

        @DelayedListener(topic = "slow", maxAttempts = "1", handlerTimeout = "200ms")
        suspend fun onMessage(payload: String) {
            try {
                delay(WAIT.toMillis())
            }
            catch (ex: CancellationException) {
                cancelled.countDown()
                throw ex
            }
        }

    }

    class StuckListener {

        val started = CountDownLatch(1)
        val cancelled = CountDownLatch(1)

        @DelayedListener(topic = "stuck")
        suspend fun onMessage(payload: String) {
            started.countDown()
            try {
                delay(WAIT.toMillis())
            }
            catch (ex: CancellationException) {
                cancelled.countDown()
                throw ex
            }
        }

    }

    class FinishingListener {

        val started = CountDownLatch(1)
        val returned = AtomicBoolean()

        @DelayedListener(topic = "finishing")
        suspend fun onMessage(payload: String) {
            started.countDown()
            delay(500)
            returned.set(true)
        }

    }

    class ValueListeners {

        val handled = ConcurrentHashMap.newKeySet<String>()

        @DelayedListener(topic = "value")
        suspend fun onMessage(payload: String, message: DeliveredMessage): String {
            delay(10)
            handled.add("${message.topic()} ${message.id()} ${message.attempt()}")
            return "done"
        }

        @DelayedListener(topic = "mono")
        suspend fun onMono(payload: String, message: DeliveredMessage): Mono<String> {
            delay(10)
            // awaited through the Mono: the message is handled when it completes, not when the function returns
            return Mono.delay(Duration.ofMillis(50))
                .map { handled.add("${message.topic()} ${message.id()} ${message.attempt()}") }
                .thenReturn("done")
        }

    }

    class FlowListener {

        @DelayedListener(topic = "flow")
        suspend fun onMessage(payload: String): Flow<String> = flowOf(payload)

    }

    class FutureListener {

        @DelayedListener(topic = "suspend-future")
        suspend fun onMessage(payload: String): CompletableFuture<String> = CompletableFuture.completedFuture(payload)

    }

}
