package dev.idempotency.config;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.PATCH;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;

import org.junit.jupiter.api.Test;

class ResourceMethodsTest {

    @Path("/payments/")
    interface PaymentsApi {
        @POST
        String create(String body);

        @POST
        @Path("{ id : [0-9]+ }/refunds")
        String refund(String id);
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

        @Override
        public String refund(String id) {
            return id;
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

    @Test
    void theHttpMethodAndThePathComeFromWhereJaxRsFindsThem() throws Exception {
        assertThat(ResourceMethods.httpMethod(Payments.class, Payments.class.getMethod("create", String.class)))
                .isEqualTo("POST");
        assertThat(ResourceMethods.httpMethod(Payments.class, Payments.class.getMethod("update"))).isEqualTo("PATCH");
        assertThat(ResourceMethods.httpMethod(Payments.class, Payments.class.getMethod("helper"))).isNull();
        assertThat(ResourceMethods.pathTemplate(Payments.class, Payments.class.getMethod("create", String.class)))
                .isEqualTo("/payments");
        assertThat(ResourceMethods.pathTemplate(Payments.class, Payments.class.getMethod("refund", String.class)))
                .as("regular expressions dropped, as OpenAPI documents spell templates")
                .isEqualTo("/payments/{id}/refunds");
    }
}
