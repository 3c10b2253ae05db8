package dev.idempotency.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Test;

import dev.idempotency.AnonymousCallers;
import dev.idempotency.IdempotencyScope;
import dev.idempotency.Idempotent;
import dev.idempotency.InProgressDuplicates;
import dev.idempotency.exceptions.IdempotencyDefinitionException;

class PolicyResolverTest {

    @Idempotent(lease = "PT5S")
    static class Payments {
        @Idempotent(ttl = "PT1H", scope = IdempotencyScope.ENDPOINT)
        public void charge() {
        }

        public void refund() {
        }
    }

    static class Overloaded {
        @Idempotent
        public void pay(String order) {
        }

        @Idempotent
        public void pay(String order, int[] amounts) {
        }
    }

    @Idempotent(name = "payments")
    static class NamedClass {
        public void pay(String order) {
        }

        @Idempotent(name = "payments.refund")
        public void refund(String order) {
        }
    }

    @Idempotent(name = "payments")
    static class NamedClassRenamed {
        public void pay(String order) {
        }
    }

    static class Members {
        @Idempotent(scope = IdempotencyScope.TENANT, anonymous = AnonymousCallers.REJECT)
        public void join() {
        }
    }

    static class Waiting {
        @Idempotent(inProgress = InProgressDuplicates.WAIT)
        public void byDefault() {
        }

        @Idempotent(inProgress = InProgressDuplicates.WAIT, lease = "PT2S")
        public void shortLease() {
        }

        @Idempotent(inProgress = InProgressDuplicates.WAIT, maxWait = "PT30S")
        public void chosen() {
        }
    }

    static class Plain {
        public void nothing() {
        }
    }

    private final Map<String, String> config = new HashMap<>();
    private final PolicyResolver resolver = new PolicyResolver(key -> Optional.ofNullable(config.get(key)));

    private static Method method(Class<?> type, String name) throws NoSuchMethodException {
        return type.getMethod(name);
    }

    private IdempotencyPolicy resolve(String name) throws NoSuchMethodException {
        return resolver.resolve(Payments.class, method(Payments.class, name));
    }

    @Test
    void defaultsApplyWithoutConfig() throws Exception {
        IdempotencyPolicy refund = resolve("refund");

        assertThat(refund.endpoint()).isEqualTo(Payments.class.getName() + "#refund()");
        assertThat(refund.ttl()).isEqualTo(Duration.ofHours(24));
        assertThat(refund.lease()).as("from the class annotation").isEqualTo(Duration.ofSeconds(5));
        assertThat(refund.required()).isTrue();
        assertThat(refund.scope()).isEqualTo(IdempotencyScope.PRINCIPAL);
        assertThat(refund.pinServerErrors()).isFalse();
        assertThat(refund.failOpen()).isFalse();
    }

    @Test
    void theDerivedIdentityHoldsTheErasedParameterTypes() throws Exception {
        IdempotencyPolicy one = resolver.resolve(Overloaded.class, Overloaded.class.getMethod("pay", String.class));
        IdempotencyPolicy two = resolver.resolve(Overloaded.class,
                Overloaded.class.getMethod("pay", String.class, int[].class));

        assertThat(one.endpoint()).isEqualTo(Overloaded.class.getName() + "#pay(java.lang.String)");
        assertThat(two.endpoint()).isEqualTo(Overloaded.class.getName() + "#pay(java.lang.String,int[])");
    }

    @Test
    void aNameOnTheMethodIsTheIdentityAndOnTheClassItStandsForTheClassName() throws Exception {
        assertThat(resolver.resolve(NamedClass.class, NamedClass.class.getMethod("refund", String.class)).endpoint())
                .isEqualTo("payments.refund");
        IdempotencyPolicy pay = resolver.resolve(NamedClass.class, NamedClass.class.getMethod("pay", String.class));
        assertThat(pay.endpoint()).isEqualTo("payments#pay(java.lang.String)");
        assertThat(resolver.resolve(NamedClassRenamed.class, NamedClassRenamed.class.getMethod("pay", String.class))
                .endpoint()).as("the class renamed: the same key space").isEqualTo(pay.endpoint());
    }

    @Test
    void aNameCanBeConfiguredForTheMethodOrTheClass() throws Exception {
        config.put(Payments.class.getName() + "/charge/Idempotent/name", "charges");
        config.put(Payments.class.getName() + "/Idempotent/name", "pay");

        assertThat(resolve("charge").endpoint()).isEqualTo("charges");
        assertThat(resolve("refund").endpoint()).isEqualTo("pay#refund()");
    }

    @Test
    void theMethodAnnotationWinsOverTheClassAnnotation() throws Exception {
        IdempotencyPolicy charge = resolve("charge");

        assertThat(charge.ttl()).isEqualTo(Duration.ofHours(1));
        assertThat(charge.lease()).as("the method's own annotation has the default lease").isEqualTo(Duration.ofSeconds(60));
        assertThat(charge.scope()).isEqualTo(IdempotencyScope.ENDPOINT);
    }

    @Test
    void methodConfigBeatsClassConfigBeatsGlobalConfigBeatsAnnotation() throws Exception {
        String fqcn = Payments.class.getName();
        config.put("Idempotent/ttl", "PT2H");
        assertThat(resolve("charge").ttl()).isEqualTo(Duration.ofHours(2));

        config.put(fqcn + "/Idempotent/ttl", "PT3H");
        assertThat(resolve("charge").ttl()).isEqualTo(Duration.ofHours(3));

        config.put(fqcn + "/charge/Idempotent/ttl", "PT4H");
        assertThat(resolve("charge").ttl()).isEqualTo(Duration.ofHours(4));
        assertThat(resolve("refund").ttl()).as("other methods keep the class value").isEqualTo(Duration.ofHours(3));
    }

    @Test
    void everyMemberCanBeConfigured() throws Exception {
        config.put("Idempotent/required", "false");
        config.put("Idempotent/scope", "endpoint");
        config.put("Idempotent/pinServerErrors", "TRUE");
        config.put("Idempotent/failOpen", "true");
        config.put("Idempotent/lease", "PT10S");

        IdempotencyPolicy refund = resolve("refund");

        assertThat(refund.required()).isFalse();
        assertThat(refund.scope()).isEqualTo(IdempotencyScope.ENDPOINT);
        assertThat(refund.pinServerErrors()).isTrue();
        assertThat(refund.failOpen()).isTrue();
        assertThat(refund.lease()).isEqualTo(Duration.ofSeconds(10));
    }

    @Test
    void aTtlShorterThanTheLeaseNamesBothKeysAndValues() {
        config.put(Payments.class.getName() + "/charge/Idempotent/ttl", "PT30S");

        assertThatThrownBy(() -> resolve("charge"))
                .isInstanceOf(IdempotencyDefinitionException.class)
                .hasMessage("IDEMP0103: bean " + Payments.class.getName() + ", method charge: "
                        + Payments.class.getName() + "/charge/Idempotent/ttl='PT30S' is shorter than "
                        + "@Idempotent(lease)='PT60S'; allowed: a ttl at least as long as the lease, or a completed"
                        + " outcome would expire before an in-progress claim");
    }

    @Test
    void badValuesFailWithCodedMessages() {
        config.put("Idempotent/lease", "sixty seconds");
        assertThatThrownBy(() -> resolve("refund")).hasMessageStartingWith("IDEMP0101: bean ")
                .hasMessageContaining("method refund").hasMessageContaining("Idempotent/lease='sixty seconds'")
                .hasMessageContaining("ISO-8601");

        config.put("Idempotent/lease", "-PT5S");
        assertThatThrownBy(() -> resolve("refund")).hasMessageStartingWith("IDEMP0102").hasMessageContaining("positive");

        config.put("Idempotent/lease", "PT0S");
        assertThatThrownBy(() -> resolve("refund")).hasMessageStartingWith("IDEMP0102");

        // past a store's clock arithmetic (Duration.toNanos() fails past 292 years)
        config.put("Idempotent/lease", "PT60S");
        config.put("Idempotent/ttl", "P1000000D");
        assertThatThrownBy(() -> resolve("refund")).hasMessageStartingWith("IDEMP0102")
                .hasMessageContaining("Idempotent/ttl='P1000000D'").hasMessageContaining("at most P36500D");
        config.remove("Idempotent/ttl");

        config.remove("Idempotent/lease");
        config.put("Idempotent/scope", "ORGANISATION");
        assertThatThrownBy(() -> resolve("refund")).hasMessageStartingWith("IDEMP0104")
                .hasMessageContaining("Idempotent/scope='ORGANISATION'")
                .hasMessageContaining("[PRINCIPAL, ENDPOINT, TENANT, TENANT_PRINCIPAL]");

        config.remove("Idempotent/scope");
        config.put("Idempotent/required", "yes");
        assertThatThrownBy(() -> resolve("refund")).hasMessageStartingWith("IDEMP0105")
                .hasMessageContaining("true or false");
    }

    @Test
    void theTenantScopesAndTheAnonymousCallersChoiceAreMembersLikeAnyOther() throws Exception {
        assertThat(resolve("refund").anonymous()).as("the default").isEqualTo(AnonymousCallers.ALLOW);
        assertThat(resolve("refund").rejectsAnonymous()).isFalse();
        assertThat(resolver.resolve(Members.class, method(Members.class, "join")).anonymous())
                .isEqualTo(AnonymousCallers.REJECT);
        assertThat(resolver.resolve(Members.class, method(Members.class, "join")).tenantScoped()).isTrue();

        config.put("Idempotent/anonymous", "reject");
        config.put(Payments.class.getName() + "/refund/Idempotent/scope", "tenant_principal");

        IdempotencyPolicy refund = resolve("refund");
        assertThat(refund.anonymous()).isEqualTo(AnonymousCallers.REJECT);
        assertThat(refund.rejectsAnonymous()).isTrue();
        assertThat(refund.scope()).isEqualTo(IdempotencyScope.TENANT_PRINCIPAL);
        assertThat(refund.tenantScoped()).isTrue();
        assertThat(resolve("charge").tenantScoped()).as("ENDPOINT on its annotation").isFalse();
    }

    @Test
    void anUnknownChoiceForAnonymousCallersFailsWithItsCode() {
        config.put(Payments.class.getName() + "/Idempotent/anonymous", "DENY");

        assertThatThrownBy(() -> resolve("refund"))
                .isInstanceOf(IdempotencyDefinitionException.class)
                .hasMessage("IDEMP0129: bean " + Payments.class.getName() + ", method refund: "
                        + Payments.class.getName() + "/Idempotent/anonymous='DENY' is not a choice for anonymous"
                        + " callers; allowed: [ALLOW, REJECT] (case-insensitive)");
    }

    @Test
    void anUnannotatedMethodHasNoAnnotation() throws Exception {
        assertThat(PolicyResolver.annotationOf(Plain.class, method(Plain.class, "nothing"))).isEmpty();
        assertThat(PolicyResolver.annotationOf(Payments.class, method(Payments.class, "refund"))).isPresent();
    }

    private IdempotencyPolicy waiting(String name) throws NoSuchMethodException {
        return resolver.resolve(Waiting.class, method(Waiting.class, name));
    }

    @Test
    void duplicatesInFlightGet409UnlessTheyWaitAndAWaitIsAtMostTheLease() throws Exception {
        assertThat(resolve("refund").inProgress()).as("the default").isEqualTo(InProgressDuplicates.CONFLICT);
        assertThat(resolve("refund").waitsForInProgress()).isFalse();
        assertThat(resolve("refund").maxWait()).as("no wait without WAIT").isZero();

        assertThat(waiting("byDefault").waitsForInProgress()).isTrue();
        assertThat(waiting("byDefault").maxWait()).as("5 s by default").isEqualTo(Duration.ofSeconds(5));
        assertThat(waiting("shortLease").maxWait()).as("never past the lease").isEqualTo(Duration.ofSeconds(2));
        assertThat(waiting("chosen").maxWait()).isEqualTo(Duration.ofSeconds(30));

        config.put(Payments.class.getName() + "/refund/Idempotent/inProgress", "wait");
        config.put("Idempotent/maxWait", "PT3S");
        assertThat(resolve("refund").inProgress()).as("configured").isEqualTo(InProgressDuplicates.WAIT);
        assertThat(resolve("refund").maxWait()).isEqualTo(Duration.ofSeconds(3));
        assertThat(resolve("charge").maxWait()).as("maxWait alone changes nothing").isZero();

        config.put("Idempotent/maxWait", "PT2M");
        assertThatThrownBy(() -> resolve("charge")).as("checked with CONFLICT too: longer than its 60 s lease")
                .hasMessageStartingWith("IDEMP0148: ");
    }

    @Test
    void aWaitLongerThanTheLeaseOrAnUnknownChoiceFailsWithItsCode() {
        config.put(Waiting.class.getName() + "/chosen/Idempotent/lease", "PT10S");
        assertThatThrownBy(() -> waiting("chosen"))
                .isInstanceOf(IdempotencyDefinitionException.class)
                .hasMessageStartingWith("IDEMP0148: bean " + Waiting.class.getName() + ", method chosen:"
                        + " @Idempotent(maxWait)='PT30S' is longer than " + Waiting.class.getName()
                        + "/chosen/Idempotent/lease='PT10S'; allowed: a positive duration up to the lease");

        config.put(Waiting.class.getName() + "/Idempotent/maxWait", "PT0S");
        assertThatThrownBy(() -> waiting("byDefault")).hasMessageStartingWith("IDEMP0102: ");
        config.put(Waiting.class.getName() + "/Idempotent/maxWait", "5s");
        assertThatThrownBy(() -> waiting("byDefault")).hasMessageStartingWith("IDEMP0101: ");

        config.put(Payments.class.getName() + "/Idempotent/inProgress", "QUEUE");
        assertThatThrownBy(() -> resolve("refund"))
                .isInstanceOf(IdempotencyDefinitionException.class)
                .hasMessage("IDEMP0147: bean " + Payments.class.getName() + ", method refund: "
                        + Payments.class.getName() + "/Idempotent/inProgress='QUEUE' is not a choice for duplicates"
                        + " in flight; allowed: [CONFLICT, WAIT] (case-insensitive)");
    }
}
