package dev.idempotency.jpa;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.util.Collection;
import java.util.Enumeration;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.parsers.ParserConfigurationException;

import org.w3c.dom.NodeList;
import org.xml.sax.SAXException;

/**
 * Whether the store's own transactions can exhaust the pool they draw from. Each runs while its
 * caller's transaction holds a connection of the same datasource and needs a second one; with the
 * bound at or above the pool's size, every connection can be held by a caller that waits for
 * another, and nothing moves until the pool's wait times out. Below it, at least one connection
 * is free for an own transaction, and callers past the bound are refused at once
 * ({@code IDEMP0511}) and give theirs back.
 */
final class PoolSizeCheck {

    /**
     * @param name the datasource's JNDI name
     * @param maxPoolSize its declared maximum, or a negative number when the server's default applies
     * @param declaredOn the class that declares it
     */
    record DeclaredPool(String name, int maxPoolSize, String declaredOn) {
    }

    private PoolSizeCheck() {
    }

    /**
     * @param bound {@code idempotency.jpa.max-own-transactions}
     * @param pools the pools the application declares
     * @param unitDataSources the datasource names of the application's persistence units
     * @return the coded message ({@code IDEMP0512}) for the first pool too small, if any
     */
    static Optional<String> problem(int bound, Collection<DeclaredPool> pools, Set<String> unitDataSources) {
        return pools.stream()
                .filter(pool -> pool.maxPoolSize() > 0 && unitDataSources.contains(pool.name()))
                .filter(pool -> bound >= pool.maxPoolSize())
                .findFirst()
                .map(pool -> "IDEMP0512: library setting " + SeparateRecordTransactions.MAX_OWN_TRANSACTIONS + "='"
                        + bound + "' is not allowed with the datasource '" + pool.name() + "' (@DataSourceDefinition on "
                        + pool.declaredOn() + ", maxPoolSize=" + pool.maxPoolSize() + ") that a persistence unit uses:"
                        + " each of the store's own transactions needs a second connection while its caller holds one,"
                        + " so with the bound at or above the pool's size every connection can be held by a caller"
                        + " waiting for another; allowed: 1 to " + (pool.maxPoolSize() - 1) + ", and a pool of the"
                        + " callers that run in a transaction plus the bound");
    }

    /**
     * @param loader the application's class loader
     * @return the {@code jta-data-source} and {@code non-jta-data-source} of every
     *     {@code META-INF/persistence.xml} it sees (an unreadable file is skipped: the check is a help,
     *     the provider reports the file's errors)
     */
    static Set<String> persistenceUnitDataSources(ClassLoader loader) {
        Set<String> names = new TreeSet<>();
        try {
            Enumeration<URL> files = loader.getResources("META-INF/persistence.xml");
            while (files.hasMoreElements()) {
                try (InputStream in = files.nextElement().openStream()) {
                    names.addAll(dataSources(in));
                } catch (IOException | SAXException | ParserConfigurationException unreadable) {
                    // skipped: see the javadoc
                }
            }
        } catch (IOException unreadable) {
            // no file can be listed: nothing to check against
        }
        return names;
    }

    /** @return the datasource names in one persistence.xml */
    static Set<String> dataSources(InputStream persistenceXml) throws IOException, SAXException,
            ParserConfigurationException {
        DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
        factory.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
        factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
        factory.setNamespaceAware(true);
        var document = factory.newDocumentBuilder().parse(persistenceXml);
        Set<String> names = new TreeSet<>();
        for (String element : new String[] {"jta-data-source", "non-jta-data-source"}) {
            NodeList found = document.getElementsByTagNameNS("*", element);
            for (int i = 0; i < found.getLength(); i++) {
                names.add(found.item(i).getTextContent().trim());
            }
        }
        return names;
    }
}
