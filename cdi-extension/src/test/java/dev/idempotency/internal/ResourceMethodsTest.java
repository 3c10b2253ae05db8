package dev.idempotency.internal;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.PATCH;
import jakarta.ws.rs.POST;

import org.junit.jupiter.api.Test;

class ResourceMethodsTest {

    interface PaymentsApi {
        @POST
        String create(String body);
    }

    static class Base {
        @PATCH
        public void update() {
        }
    }

    static class Payments extends Base implements PaymentsApi {
        @Override
        public String create(String body) {
            return body;
        }

        @Override
        public void update() {
        }

        @GET
        public String read() {
            return "";
        }

        public void helper() {
        }
    }

    @Test
    void designatorsOnTheMethodOrOnWhatItOverridesCount() throws Exception {
        assertThat(ResourceMethods.isResourceMethod(Payments.class, Payments.class.getMethod("read"))).isTrue();
        assertThat(ResourceMethods.isResourceMethod(Payments.class, Payments.class.getMethod("create", String.class)))
                .as("from the interface").isTrue();
        assertThat(ResourceMethods.isResourceMethod(Payments.class, Payments.class.getMethod("update")))
                .as("from the superclass").isTrue();
        assertThat(ResourceMethods.isResourceMethod(Payments.class, Payments.class.getMethod("helper"))).isFalse();
    }
}
