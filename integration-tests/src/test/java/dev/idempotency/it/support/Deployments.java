package dev.idempotency.it.support;

import java.io.File;

import org.jboss.shrinkwrap.api.ShrinkWrap;
import org.jboss.shrinkwrap.api.asset.StringAsset;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.jboss.shrinkwrap.api.importer.ZipImporter;

/** Test deployments: the sample application exactly as built, plus test-only parts. */
public final class Deployments {

    private static final String CONFIG = "WEB-INF/classes/META-INF/microprofile-config.properties";

    private Deployments() {
    }

    /**
     * @param name the archive name (the context root)
     * @param config the microprofile-config.properties to use instead of the sample's
     * @return the sample WAR built by this module, with that config
     */
    public static WebArchive sampleApp(String name, String config) {
        File war = new File(System.getProperty("sample.war", "target/payments.war"));
        WebArchive archive = ShrinkWrap.create(ZipImporter.class, name + ".war").importFrom(war).as(WebArchive.class);
        archive.delete(CONFIG);
        archive.add(new StringAsset(config), CONFIG);
        return archive;
    }
}
