package io.github.delayqueue.sample;

/**
 * The delayed message that cancels an unpaid order.
 *
 * @param orderId the order to cancel if it is still unpaid
 */
public record OrderTimeout(String orderId) {
}
