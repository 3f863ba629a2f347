/**
 * Support internals: the group commits that share calls to Redis among concurrent callers. Public for the library's
 * own packages, not an API: any of it may change in any release.
 */
@NullMarked
package io.github.delayqueue.support.internal;

import org.jspecify.annotations.NullMarked;
