package dev.idempotency.sample;

import jakarta.ws.rs.ApplicationPath;
import jakarta.ws.rs.core.Application;

/** The sample payments API under {@code /api}. Nothing idempotency-specific is registered here. */
@ApplicationPath("/api")
public class PaymentsApplication extends Application {
}
