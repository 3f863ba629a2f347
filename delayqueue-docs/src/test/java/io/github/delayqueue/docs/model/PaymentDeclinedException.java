package io.github.delayqueue.docs.model;

/** A payment the provider refused. */
public class PaymentDeclinedException extends RuntimeException {

	public PaymentDeclinedException(String message) {
		super(message);
	}

}
