/**
 * What the operators' dashboard shows, without the web: a background sampler that keeps a short history of every
 * topic's counts (and this instance's rates and lateness), the due-time timeline of a topic, and the views and
 * actions the page works with. Every read is bounded: nothing here loads a whole topic.
 */
@NullMarked
package io.github.delayqueue.dashboard;

import org.jspecify.annotations.NullMarked;
