/**
 * What store modules may use from the core beside the SPI, and keep using across releases: reading
 * raw configuration values, tying work to the caller's JTA transaction, making owner tokens, and
 * encoding an outcome's headers.
 */
package dev.idempotency.spi.support;
