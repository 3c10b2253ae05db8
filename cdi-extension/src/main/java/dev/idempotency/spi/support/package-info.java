/**
 * What store modules may use from the core beside the SPI, and keep using across releases: reading
 * raw configuration values, and tying work to the caller's JTA transaction.
 */
package dev.idempotency.spi.support;
