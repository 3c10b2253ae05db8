package dev.idempotency.jpa;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.util.Enumeration;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.parsers.ParserConfigurationException;

import org.w3c.dom.Element;
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

    /** The store's own persistence unit, used when the application produces no entity manager for it. */
    static final String OWN_UNIT = "idempotency";

    /**
     * @param bound {@code idempotency.jpa.max-own-transactions}
     * @param pool the pool the application declares for the store's unit's datasource, or null
     * @param unit the store's persistence unit
     * @return the coded message ({@code IDEMP0512}) when the pool is too small for the bound
     */
    static Optional<String> problem(int bound, DeclaredPool pool, String unit) {
        if (pool == null || pool.maxPoolSize() <= 0 || bound < pool.maxPoolSize()) {
            return Optional.empty();
        }
        return Optional.of(JpaMessages.poolTooSmall(SeparateRecordTransactions.MAX_OWN_TRANSACTIONS, bound, pool.name(),
                pool.declaredOn(), pool.maxPoolSize(), unit));
    }

    /**
     * @param loader the application's class loader
     * @return each persistence unit's {@code jta-data-source}, by unit name, from every
     *     {@code META-INF/persistence.xml} it sees (an unreadable file is skipped: the check is a help,
     *     the provider reports the file's errors)
     */
    static Map<String, String> persistenceUnitDataSources(ClassLoader loader) {
        Map<String, String> dataSources = new TreeMap<>();
        try {
            Enumeration<URL> files = loader.getResources("META-INF/persistence.xml");
            while (files.hasMoreElements()) {
                try (InputStream in = files.nextElement().openStream()) {
                    dataSources.putAll(dataSources(in));
                } catch (IOException | SAXException | ParserConfigurationException unreadable) {
                    // skipped: see the javadoc
                }
            }
        } catch (IOException unreadable) {
            // no file can be listed: nothing to check against
        }
        return dataSources;
    }

    /** @return the jta-data-source of each unit in one persistence.xml, by unit name */
    static Map<String, String> dataSources(InputStream persistenceXml) throws IOException, SAXException,
            ParserConfigurationException {
        DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
        factory.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
        factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
        factory.setNamespaceAware(true);
        var document = factory.newDocumentBuilder().parse(persistenceXml);
        Map<String, String> dataSources = new TreeMap<>();
        NodeList units = document.getElementsByTagNameNS("*", "persistence-unit");
        for (int i = 0; i < units.getLength(); i++) {
            Element unit = (Element) units.item(i);
            NodeList jta = unit.getElementsByTagNameNS("*", "jta-data-source");
            if (jta.getLength() > 0) {
                dataSources.put(unit.getAttribute("name"), jta.item(0).getTextContent().trim());
            }
        }
        return dataSources;
    }
}
