package dev.idempotency.it.mdb;

import java.lang.reflect.Proxy;
import java.util.Map;

import jakarta.jms.Message;

/** In-memory JMS messages for the loopback adapter: headers and properties only. */
public final class Messages {

    private Messages() {
    }

    /**
     * @param messageId the JMSMessageID
     * @param properties string properties; {@code delayMs} is read as a long
     * @return a message
     */
    public static Message of(String messageId, Map<String, String> properties) {
        return (Message) Proxy.newProxyInstance(Message.class.getClassLoader(), new Class<?>[] {Message.class},
                (proxy, method, args) -> switch (method.getName()) {
                    case "getJMSMessageID" -> messageId;
                    case "getStringProperty" -> properties.get((String) args[0]);
                    case "getLongProperty" -> Long.parseLong(properties.getOrDefault((String) args[0], "0"));
                    case "toString" -> "Message[" + messageId + "]";
                    case "hashCode" -> System.identityHashCode(proxy);
                    case "equals" -> proxy == args[0];
                    default -> throw new UnsupportedOperationException(method.getName());
                });
    }
}
