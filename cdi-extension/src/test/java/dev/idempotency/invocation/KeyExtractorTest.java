package dev.idempotency.invocation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.List;
import java.util.UUID;

import jakarta.jms.Message;

import org.junit.jupiter.api.Test;

import dev.idempotency.IdempotencyKey;
import dev.idempotency.exceptions.IdempotencyDefinitionException;
import dev.idempotency.exceptions.InvalidIdempotencyKeyException;

class KeyExtractorTest {

    public record Customer(String id) {
    }

    /** A command whose payload is an array: the record's text shows the array's identity. */
    public record Command(String id, byte[] payload) {
    }

    /** A record whose component's class has no toString() of its own, one level down. */
    public record Envelope(Customer customer, Ticket ticket) {
    }

    /** A record with an array component that says itself what its text is. */
    public record Signed(String id, byte[] payload) {
        @Override
        public String toString() {
            return id;
        }
    }

    /** A record whose component's declared type does not tell: its values are looked at per call. */
    public record Charge(String account, Number amount, Object payload) {
    }

    /** A record whose every component has a text of its own (an interface's values may declare theirs). */
    public record Line(String sku, int quantity, java.util.List<String> tags, Customer customer) {
    }

    /** A record whose optional component's text shows an array's identity. */
    public record Blob(String id, java.util.Optional<byte[]> blob) {
    }

    /** A collection of its own, without its own toString(): its text is its identity, whatever it holds. */
    public static final class Ids extends java.util.AbstractCollection<String> {
        @Override
        public java.util.Iterator<String> iterator() {
            return java.util.List.of("a").iterator();
        }

        @Override
        public int size() {
            return 1;
        }

        @Override
        public String toString() {
            return super.toString();
        }
    }

    /** A collection implemented directly, which inherits Object's toString(). */
    public static final class RawIds implements java.util.Collection<String> {
        private final java.util.List<String> ids = java.util.List.of("a");

        @Override
        public int size() {
            return ids.size();
        }

        @Override
        public boolean isEmpty() {
            return ids.isEmpty();
        }

        @Override
        public boolean contains(Object o) {
            return ids.contains(o);
        }

        @Override
        public java.util.Iterator<String> iterator() {
            return ids.iterator();
        }

        @Override
        public Object[] toArray() {
            return ids.toArray();
        }

        @Override
        public <T> T[] toArray(T[] a) {
            return ids.toArray(a);
        }

        @Override
        public boolean add(String e) {
            throw new UnsupportedOperationException();
        }

        @Override
        public boolean remove(Object o) {
            throw new UnsupportedOperationException();
        }

        @Override
        public boolean containsAll(java.util.Collection<?> c) {
            return ids.containsAll(c);
        }

        @Override
        public boolean addAll(java.util.Collection<? extends String> c) {
            throw new UnsupportedOperationException();
        }

        @Override
        public boolean removeAll(java.util.Collection<?> c) {
            throw new UnsupportedOperationException();
        }

        @Override
        public boolean retainAll(java.util.Collection<?> c) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void clear() {
            throw new UnsupportedOperationException();
        }
    }

    /** A final class without its own toString(): its text is its identity. */
    public static final class Ticket {
    }

    public static class Order {
        public String region = "eu";
        private final String orderNo;
        private final Customer customer;
        private final boolean express;

        public Order(String orderNo, Customer customer, boolean express) {
            this.orderNo = orderNo;
            this.customer = customer;
            this.express = express;
        }

        public String getOrderNo() {
            return orderNo;
        }

        public Customer getCustomer() {
            return customer;
        }

        public boolean isExpress() {
            return express;
        }
    }

    static class Consumers {
        public void plain(@IdempotencyKey String key, String other) {
        }

        public void uuid(@IdempotencyKey UUID key) {
        }

        public void order(@IdempotencyKey("orderNo") Order order) {
        }

        public void nested(@IdempotencyKey("customer.id") Order order, @IdempotencyKey("region") Order same) {
        }

        public void flag(@IdempotencyKey("express") Order order) {
        }

        public void unknown(@IdempotencyKey("customer.name") Order order) {
        }

        public void message(@IdempotencyKey("JMSMessageID") Message message, @IdempotencyKey("orderId") Message same) {
        }

        public void bytes(@IdempotencyKey byte[] correlation) {
        }

        public void withoutText(@IdempotencyKey Ticket ticket) {
        }

        public void subclassed(@IdempotencyKey Order order) {
        }

        public void number(@IdempotencyKey java.util.OptionalLong id) {
        }

        public void optional(@IdempotencyKey java.util.Optional<String> key) {
        }

        public void anything(@IdempotencyKey Object key) {
        }

        public void command(@IdempotencyKey Command command) {
        }

        public void envelope(@IdempotencyKey Envelope envelope) {
        }

        public void line(@IdempotencyKey Line line) {
        }

        public void signed(@IdempotencyKey Signed signed) {
        }

        public void charge(@IdempotencyKey Charge charge) {
        }

        public void tickets(@IdempotencyKey java.util.List<Ticket> tickets) {
        }

        public void blob(@IdempotencyKey Blob blob) {
        }

        public void byRegion(@IdempotencyKey java.util.Map<String, Object> regions) {
        }

        public void ids(@IdempotencyKey java.util.Collection<String> ids) {
        }
    }

    private static KeyExtractor extractor(String name) {
        for (Method method : Consumers.class.getMethods()) {
            if (method.getName().equals(name)) {
                return KeyExtractor.of(Consumers.class, method, 255);
            }
        }
        throw new IllegalArgumentException(name);
    }

    private final Order order = new Order("o-42", new Customer("c-7"), true);

    @Test
    void aParameterItselfIsTheKey() {
        assertThat(extractor("plain").extract(new Object[] {"k-1", "other"})).isEqualTo("k-1");
        assertThat(extractor("plain").wholeKeyParameterIndices()).containsExactly(0);
        assertThat(extractor("order").wholeKeyParameterIndices()).as("a message keyed by a property is payload too")
                .isEmpty();
        UUID id = UUID.randomUUID();
        assertThat(extractor("uuid").extract(new Object[] {id})).isEqualTo(id.toString());
    }

    @Test
    void propertyPathsFollowGettersRecordComponentsAndFields() {
        assertThat(extractor("order").extract(new Object[] {order})).isEqualTo("o-42");
        assertThat(extractor("flag").extract(new Object[] {order})).isEqualTo("true");
        assertThat(extractor("nested").extract(new Object[] {order, order})).as("parts joined in parameter order")
                .isEqualTo("c-7\neu");
    }

    @Test
    void anUnknownPropertyFailsTheDeployment() {
        assertThatThrownBy(() -> extractor("unknown"))
                .isInstanceOf(IdempotencyDefinitionException.class)
                .hasMessageStartingWith("IDEMP0110: bean " + Consumers.class.getName() + ", method unknown: "
                        + "@IdempotencyKey(\"customer.name\") on parameter 0: 'name' is not a property of "
                        + Customer.class.getName());
    }

    @Test
    void badKeyValuesAreRefusedWithoutEchoingThem() {
        KeyExtractor plain = extractor("plain");
        assertThatThrownBy(() -> plain.extract(new Object[] {null, "x"})).isInstanceOf(InvalidIdempotencyKeyException.class)
                .hasMessageContaining("IDEMP0303").hasMessageContaining("parameter 0 is null");
        assertThatThrownBy(() -> plain.extract(new Object[] {"", "x"})).hasMessageContaining("is empty");
        assertThatThrownBy(() -> plain.extract(new Object[] {"k".repeat(256), "x"})).hasMessageContaining("256 characters");
        assertThatThrownBy(() -> plain.extract(new Object[] {"caf\u00e9", "x"})).hasMessageContaining("printable US-ASCII")
                .hasMessageNotContaining("caf");
        assertThatThrownBy(() -> extractor("order").extract(new Object[] {new Order(null, null, false)}))
                .hasMessageContaining("parameter 0 path 'orderNo' is null");
        assertThatThrownBy(() -> extractor("nested").extract(new Object[] {new Order("o", null, false), order}))
                .as("a null along the path").hasMessageContaining("path 'customer.id' is null");
    }

    /**
     * A key part whose text is its identity (an array, an object without its own toString()) would
     * give every call, and every redelivery of one message, a key of its own: refused at deployment.
     */
    @Test
    void aKeyTypeWhoseTextIsItsIdentityFailsTheDeployment() {
        assertThatThrownBy(() -> extractor("bytes")).isInstanceOf(IdempotencyDefinitionException.class)
                .hasMessageStartingWith("IDEMP0150: bean " + Consumers.class.getName() + ", method bytes: "
                        + "@IdempotencyKey on parameter 0 is of type byte[], an array");
        assertThatThrownBy(() -> extractor("withoutText")).isInstanceOf(IdempotencyDefinitionException.class)
                .hasMessageContaining("IDEMP0150").hasMessageContaining("does not declare toString()");
        KeyExtractor subclassed = extractor("subclassed");
        assertThat(subclassed).as("a class that is not final: its values may declare their own").isNotNull();
        assertThatThrownBy(() -> subclassed.extract(new Object[] {order})).as("this one does not: refused per call")
                .isInstanceOf(InvalidIdempotencyKeyException.class).hasMessageContaining("does not declare toString()");
        Order named = new Order("o-1", null, false) {
            @Override
            public String toString() {
                return "order o-1";
            }
        };
        assertThat(subclassed.extract(new Object[] {named})).isEqualTo("order o-1");
    }

    /**
     * A record always has a toString(), but it is made of its components' texts: an array component
     * (or one whose class has no text of its own) puts an identity in it, different for every
     * redelivery of one message. Refused at deployment, and per call for a value of another
     * declared type.
     */
    @Test
    void aRecordWithAComponentWhoseTextIsItsIdentityFailsTheDeployment() {
        assertThatThrownBy(() -> extractor("command")).isInstanceOf(IdempotencyDefinitionException.class)
                .hasMessageContaining("IDEMP0150").hasMessageContaining("component payload")
                .hasMessageContaining("an array");
        assertThatThrownBy(() -> extractor("envelope")).isInstanceOf(IdempotencyDefinitionException.class)
                .hasMessageContaining("IDEMP0150").hasMessageContaining("component ticket")
                .hasMessageContaining("does not declare toString()");
        assertThat(extractor("line").extract(new Object[] {new Line("sku-1", 2, List.of("a"), new Customer("c-1"))}))
                .isEqualTo("Line[sku=sku-1, quantity=2, tags=[a], customer=Customer[id=c-1]]");
        assertThatThrownBy(() -> extractor("anything").extract(new Object[] {new Command("c-1", new byte[] {1})}))
                .isInstanceOf(InvalidIdempotencyKeyException.class).hasMessageContaining("component payload");
    }

    /**
     * A record that declares its own toString() says what its text is, whatever its components; a
     * component whose declared type does not tell (an abstract class, {@code Object}) is looked at
     * per call, as a key parameter of such a type is.
     */
    @Test
    void aRecordsOwnTextIsItsKeyAndComponentsOfOpenTypesAreCheckedPerCall() {
        assertThat(extractor("signed").extract(new Object[] {new Signed("s-1", new byte[] {1})})).isEqualTo("s-1");
        KeyExtractor charge = extractor("charge");
        assertThat(charge.extract(new Object[] {new Charge("a-1", new java.math.BigDecimal("1.50"), "p")}))
                .isEqualTo("Charge[account=a-1, amount=1.50, payload=p]");
        assertThatThrownBy(() -> charge.extract(new Object[] {new Charge("a-1", 1, new byte[] {1})}))
                .isInstanceOf(InvalidIdempotencyKeyException.class).hasMessageContaining("component payload")
                .hasMessageContaining("an array");
        assertThatThrownBy(() -> charge.extract(new Object[] {new Charge("a-1", 1, new Command("c", new byte[0]))}))
                .as("a record inside").isInstanceOf(InvalidIdempotencyKeyException.class)
                .hasMessageContaining("component payload is a record whose component payload is an array");
    }

    /**
     * Values whose text is their identity inside a collection, a map or an Optional: every
     * redelivery (deserialized anew) had a key of its own and ran again. Refused per call now, as
     * such a value is alone or in a record.
     */
    @Test
    void anIdentityInsideACollectionAMapOrAnOptionalIsNoKey() {
        assertThatThrownBy(() -> extractor("tickets").extract(new Object[] {java.util.List.of(new Ticket())}))
                .isInstanceOf(InvalidIdempotencyKeyException.class)
                .hasMessageContaining("is a collection holding a class that does not declare toString()");
        assertThatThrownBy(() -> extractor("blob").extract(new Object[] {new Blob("b-1", java.util.Optional.of(new byte[] {1}))}))
                .isInstanceOf(InvalidIdempotencyKeyException.class)
                .hasMessageContaining("is a record whose component blob is an Optional holding an array");
        assertThatThrownBy(() -> extractor("byRegion").extract(new Object[] {java.util.Map.of("eu", new byte[] {1})}))
                .isInstanceOf(InvalidIdempotencyKeyException.class).hasMessageContaining("is a map holding an array");
        assertThat(extractor("blob").extract(new Object[] {new Blob("b-1", java.util.Optional.empty())}))
                .isEqualTo("Blob[id=b-1, blob=Optional.empty]");
        assertThat(extractor("byRegion").extract(new Object[] {java.util.Map.of("eu", 1)})).isEqualTo("{eu=1}");
        assertThatThrownBy(() -> extractor("ids").extract(new Object[] {new RawIds()}))
                .as("a collection whose own text is its identity, whatever it holds")
                .isInstanceOf(InvalidIdempotencyKeyException.class).hasMessageContaining("does not declare toString()");
        assertThat(extractor("ids").extract(new Object[] {new Ids()})).isEqualTo("[a]");
    }

    @Test
    void blankEmptyOptionalAndArrayValuesAreNoKey() {
        assertThatThrownBy(() -> extractor("plain").extract(new Object[] {"   ", "x"}))
                .isInstanceOf(InvalidIdempotencyKeyException.class).hasMessageContaining("is blank");
        KeyExtractor optional = extractor("optional");
        assertThat(optional.extract(new Object[] {java.util.Optional.of("k-1")})).isEqualTo("k-1");
        assertThatThrownBy(() -> optional.extract(new Object[] {java.util.Optional.empty()}))
                .isInstanceOf(InvalidIdempotencyKeyException.class).hasMessageContaining("is null");
        assertThat(extractor("number").extract(new Object[] {java.util.OptionalLong.of(42)})).isEqualTo("42");
        assertThatThrownBy(() -> extractor("number").extract(new Object[] {java.util.OptionalLong.empty()}))
                .isInstanceOf(InvalidIdempotencyKeyException.class).hasMessageContaining("is null");
        assertThatThrownBy(() -> extractor("anything").extract(new Object[] {new byte[] {1, 2}}))
                .isInstanceOf(InvalidIdempotencyKeyException.class).hasMessageContaining("is an array");
    }

    @Test
    void aJmsMessageOffersItsHeadersAndStringProperties() {
        Message message = (Message) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Message.class},
                (proxy, method, args) -> switch (method.getName()) {
                    case "getJMSMessageID" -> "ID:42";
                    case "getStringProperty" -> "order-" + args[0];
                    default -> throw new UnsupportedOperationException(method.getName());
                });

        assertThat(extractor("message").extract(new Object[] {message, message})).isEqualTo("ID:42\norder-orderId");
    }
}
