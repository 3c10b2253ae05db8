package dev.idempotency.openapi;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Optional;

import org.eclipse.microprofile.openapi.OASFactory;
import org.eclipse.microprofile.openapi.models.OpenAPI;
import org.eclipse.microprofile.openapi.models.Operation;
import org.eclipse.microprofile.openapi.models.responses.APIResponse;
import org.junit.jupiter.api.Test;

import dev.idempotency.Idempotent;
import dev.idempotency.config.HttpOperation;
import dev.idempotency.config.IdempotencyPolicy;
import dev.idempotency.config.LibrarySettings;
import dev.idempotency.config.PolicyResolver;

/** The operations the OpenAPI filter documents, and what it says of them (SmallRye's model, as on a server). */
class OperationDocumenterTest {

    static class Orders {
        @Idempotent
        public void create() {
        }
    }

    private static IdempotencyPolicy policy() throws NoSuchMethodException {
        return new PolicyResolver(key -> Optional.empty()).resolve(Orders.class, Orders.class.getMethod("create"));
    }

    private static OperationDocumenter documenter(HttpOperation... operations) {
        return new OperationDocumenter(LibrarySettings.load(key -> Optional.empty()), List.of(operations));
    }

    private static Operation post() {
        return OASFactory.createOperation().responses(OASFactory.createAPIResponses()
                .addAPIResponse("201", OASFactory.createAPIResponse().description("created")));
    }

    /**
     * The support endpoint's problems (403 support-role-required, 404 no-record, 409
     * lease-running...) were listed on every @Idempotent operation, which never answers them.
     */
    @Test
    void anOperationListsOnlyTheProblemsItCanAnswer() throws Exception {
        Operation create = post();
        OpenAPI document = OASFactory.createOpenAPI().paths(OASFactory.createPaths()
                .addPathItem("/api/orders", OASFactory.createPathItem().POST(create)));

        assertThat(documenter(new HttpOperation("POST", "/orders", policy())).document(document)).isEqualTo(1);

        assertThat(create.getResponses().getAPIResponses().keySet())
                .containsExactlyInAnyOrder("201", "400", "409", "410", "413", "422", "503");
        APIResponse conflict = create.getResponses().getAPIResponse("409");
        assertThat(conflict.getDescription()).contains("request-in-progress").doesNotContain("lease-running")
                .doesNotContain("not-releasable");
        assertThat(create.getResponses().getAPIResponse("400").getDescription()).doesNotContain("invalid-support-request");
    }

    /**
     * An ordinary operation whose path ends like an idempotent one's, listed first: the vote for
     * the application's path tied, the first won, and the ordinary operation was documented as
     * idempotent (a required Idempotency-Key) while the idempotent one was not.
     */
    @Test
    void anOrdinaryOperationWhosePathEndsLikeAnIdempotentOnesIsLeftAlone() throws Exception {
        Operation nested = post();
        Operation create = post();
        OpenAPI document = OASFactory.createOpenAPI().paths(OASFactory.createPaths()
                .addPathItem("/api/customers/{id}/orders", OASFactory.createPathItem().POST(nested))
                .addPathItem("/api/orders", OASFactory.createPathItem().POST(create)));

        documenter(new HttpOperation("POST", "/orders", policy())).document(document);

        assertThat(create.getExtensions()).containsKey("x-idempotency");
        assertThat(nested.getExtensions()).as("not idempotent").isNullOrEmpty();
        assertThat(nested.getParameters()).isNullOrEmpty();
    }
}
