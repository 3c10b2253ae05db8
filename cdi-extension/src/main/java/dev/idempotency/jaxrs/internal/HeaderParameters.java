package dev.idempotency.jaxrs.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Reads the {@code ;}-separated {@code name=value} parameters of a header's value (RFC 9110
 * section 5.6.6): a media type's ({@code charset}, {@code boundary}), an RFC 7239
 * {@code Forwarded} element's ({@code host}, {@code proto}). Names are compared without case; a
 * quoted value is unquoted, its backslash escapes undone.
 */
final class HeaderParameters {

    private HeaderParameters() {
    }

    /**
     * @param mediaType a {@code Content-Type} value, or {@code null}
     * @param name the parameter's name
     * @return its values in order (a parameter named twice has two), after the type itself
     */
    static List<String> ofMediaType(String mediaType, String name) {
        return values(mediaType, name, 1);
    }

    /**
     * @param element a list of parameters alone (a {@code Forwarded} element), or {@code null}
     * @param name the parameter's name
     * @return its values in order
     */
    static List<String> of(String element, String name) {
        return values(element, name, 0);
    }

    /** @return the media type's {@code type/subtype}, in lower case, or "" for none */
    static String mediaType(String mediaType) {
        if (mediaType == null) {
            return "";
        }
        int semicolon = mediaType.indexOf(';');
        return (semicolon < 0 ? mediaType : mediaType.substring(0, semicolon)).strip().toLowerCase(Locale.ROOT);
    }

    private static List<String> values(String header, String name, int from) {
        if (header == null || (from > 0 && header.indexOf(';') < 0)) {
            return List.of(); // the common Content-Type without parameters: nothing split per request
        }
        String[] parameters = header.split(";");
        List<String> values = new ArrayList<>(1);
        for (int i = from; i < parameters.length; i++) {
            String parameter = parameters[i];
            int equals = parameter.indexOf('=');
            if (equals > 0 && parameter.substring(0, equals).strip().equalsIgnoreCase(name)) {
                String value = parameter.substring(equals + 1).strip();
                if (value.length() >= 2 && value.startsWith("\"") && value.endsWith("\"")) {
                    value = value.substring(1, value.length() - 1).replaceAll("\\\\(.)", "$1");
                }
                values.add(value);
            }
        }
        return values;
    }
}
