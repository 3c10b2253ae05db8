/**
 * Implementation details; not an API. Types here may change in any release.
 */
package dev.idempotency.internal;
