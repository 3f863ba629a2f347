/**
 * The types the documentation's snippets talk about (orders, timeouts, reminders), kept apart so that the snippets
 * show only what the page is about.
 */
package io.github.delayqueue.docs.model;
