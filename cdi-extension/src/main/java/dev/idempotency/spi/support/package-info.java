/**
 * What store modules may use from the core beside the SPI, and keep using across releases: reading
 * raw configuration values, tying work to the caller's JTA transaction, and making owner tokens.
 */
package dev.idempotency.spi.support;
