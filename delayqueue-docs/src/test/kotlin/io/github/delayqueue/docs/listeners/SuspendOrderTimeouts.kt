package io.github.delayqueue.docs.listeners

import io.github.delayqueue.annotation.DelayedListener
import kotlinx.coroutines.delay
import java.util.concurrent.ConcurrentLinkedQueue

/** The order book of the listeners page's Kotlin snippet: cancelling waits, as a call to another service would. */
class SuspendOrderBook {

    val cancelled = ConcurrentLinkedQueue<String>()

    suspend fun cancelIfUnpaid(orderId: String) {
        delay(20)
        cancelled.add(orderId)
    }

}

data class OrderTimeout(val orderId: String)

// tag::suspend[]
class OrderTimeouts(private val orders: SuspendOrderBook) {

    @DelayedListener(topic = "order-timeout")
    suspend fun onTimeout(timeout: OrderTimeout) {
        // the lease is held until the function returns: returning acknowledges, throwing retries
        orders.cancelIfUnpaid(timeout.orderId)
    }

}
// end::suspend[]
