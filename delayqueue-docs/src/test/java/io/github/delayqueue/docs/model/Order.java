package io.github.delayqueue.docs.model;

/** An order, as far as the documentation's snippets need one. */
public record Order(String id, String customer) {

	public static Order pending(NewOrder request) {
		return new Order(request.id(), request.customer());
	}

	/** What a customer asks for. */
	public record NewOrder(String id, String customer) {
	}

}
