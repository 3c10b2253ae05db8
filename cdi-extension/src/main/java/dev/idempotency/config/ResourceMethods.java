package dev.idempotency.config;

import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.HttpMethod;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.sse.SseEventSink;

/**
 * Tells JAX-RS resource methods from other methods, following the JAX-RS rule that a method's
 * JAX-RS annotations may sit on the method it overrides or implements.
 */
public final class ResourceMethods {

    /** A path parameter with optional blanks and regular expression: {@code { id : [0-9]+ }}. */
    private static final Pattern TEMPLATE_PARAMETER = Pattern.compile("\\{\\s*([^}:\\s]+)\\s*(?::[^}]*)?}");

    private ResourceMethods() {
    }

    /**
     * @param type the bean class
     * @param method one of its methods
     * @return whether the method carries an HTTP method designator ({@code @GET}, {@code @POST}, ...)
     *     itself or on a method of a supertype it overrides
     */
    public static boolean isResourceMethod(Class<?> type, Method method) {
        return declaringResourceMethod(type, method) != null;
    }

    /**
     * @param method a resource method
     * @return what makes it answer as a stream of parts sent after its response was recorded (an
     *     {@code SseEventSink} parameter, a Jersey {@code ChunkedOutput}), which a replay could not
     *     repeat; or {@code null} when its answer is written once
     */
    public static String streamedAnswer(Method method) {
        for (Class<?> parameter : method.getParameterTypes()) {
            if (SseEventSink.class.isAssignableFrom(parameter)) {
                return "an SseEventSink parameter (server-sent events)";
            }
        }
        // By name: Jersey is only one JAX-RS implementation, and not on every server's class path.
        for (Class<?> type = method.getReturnType(); type != null; type = type.getSuperclass()) {
            if (type.getName().equals("org.glassfish.jersey.server.ChunkedOutput")) {
                return "a Jersey ChunkedOutput return type";
            }
        }
        return null;
    }

    /**
     * @param type the resource class
     * @param method one of its resource methods
     * @return its HTTP method ({@code POST}, ...), or {@code null} when it has no designator
     */
    public static String httpMethod(Class<?> type, Method method) {
        Method declared = declaringResourceMethod(type, method);
        if (declared == null) {
            return null;
        }
        for (Annotation annotation : declared.getAnnotations()) {
            HttpMethod designator = annotation.annotationType().getAnnotation(HttpMethod.class);
            if (designator != null) {
                return designator.value();
            }
        }
        return null;
    }

    /**
     * The path of a resource method relative to its application, as JAX-RS and OpenAPI documents
     * spell it: the class's {@code @Path} and the method's, joined by one slash, with template
     * regular expressions dropped ({@code {id: [0-9]+}} becomes {@code {id}}).
     *
     * @param type the resource class
     * @param method one of its resource methods
     * @return e.g. {@code /payments/{id}}
     */
    public static String pathTemplate(Class<?> type, Method method) {
        Path onClass = classPath(type);
        Method declared = declaringResourceMethod(type, method);
        Path onMethod = declared == null ? null : declared.getAnnotation(Path.class);
        StringBuilder template = new StringBuilder();
        for (Path path : new Path[] {onClass, onMethod}) {
            if (path != null) {
                String value = path.value().replaceAll("^/+|/+$", "");
                if (!value.isEmpty()) {
                    template.append('/').append(value);
                }
            }
        }
        String joined = template.length() == 0 ? "/" : template.toString();
        return TEMPLATE_PARAMETER.matcher(joined).replaceAll("{$1}");
    }

    /**
     * @param type the resource class
     * @param method one of its resource methods
     * @return whether it consumes JSON media types only ({@code application/json},
     *     {@code application/*+json}), by its {@code @Consumes} or, without one, its class's; without
     *     either it consumes anything
     */
    public static boolean consumesJsonOnly(Class<?> type, Method method) {
        List<String> mediaTypes = consumed(type, method);
        return !mediaTypes.isEmpty() && mediaTypes.stream().allMatch(
                m -> m.equals("application/json") || (m.startsWith("application/") && m.endsWith("+json")));
    }

    /**
     * @param type the resource class
     * @param method one of its resource methods
     * @return the {@code @Consumes} media types, when it consumes forms and multipart bodies only
     *     ({@code application/x-www-form-urlencoded}, {@code multipart/*}), which are never JSON; else null
     */
    public static String consumesFormsOnly(Class<?> type, Method method) {
        List<String> mediaTypes = consumed(type, method);
        boolean forms = !mediaTypes.isEmpty() && mediaTypes.stream().allMatch(
                m -> m.equals("application/x-www-form-urlencoded") || m.startsWith("multipart/"));
        return forms ? "@Consumes(" + String.join(", ", mediaTypes) + ")" : null;
    }

    /** @return the media types of its {@code @Consumes} or, without one, its class's, lower case, without parameters; empty for none */
    private static List<String> consumed(Class<?> type, Method method) {
        Method declared = declaringResourceMethod(type, method);
        Consumes consumes = declared == null ? null : declared.getAnnotation(Consumes.class);
        if (consumes == null) {
            consumes = onType(type, Consumes.class);
        }
        if (consumes == null) {
            return List.of();
        }
        return Arrays.stream(consumes.value()).flatMap(v -> Arrays.stream(v.split(",")))
                .map(v -> v.split(";", 2)[0].strip().toLowerCase(Locale.ROOT)).filter(v -> !v.isEmpty()).toList();
    }

    private static <A extends Annotation> A onType(Class<?> type, Class<A> annotation) {
        for (Class<?> current = type; current != null && current != Object.class; current = current.getSuperclass()) {
            if (current.isAnnotationPresent(annotation)) {
                return current.getAnnotation(annotation);
            }
            for (Class<?> contract : current.getInterfaces()) {
                A found = onType(contract, annotation);
                if (found != null) {
                    return found;
                }
            }
        }
        return null;
    }

    private static Path classPath(Class<?> type) {
        for (Class<?> current = type; current != null && current != Object.class; current = current.getSuperclass()) {
            if (current.isAnnotationPresent(Path.class)) {
                return current.getAnnotation(Path.class);
            }
            for (Class<?> contract : current.getInterfaces()) {
                Path path = classPath(contract);
                if (path != null) {
                    return path;
                }
            }
        }
        return null;
    }

    /** @return the declaration of the method (in the type or a supertype) that carries its designator */
    private static Method declaringResourceMethod(Class<?> type, Method method) {
        for (Class<?> current = type; current != null && current != Object.class; current = current.getSuperclass()) {
            if (declaresDesignator(current, method)) {
                try {
                    return current.getDeclaredMethod(method.getName(), method.getParameterTypes());
                } catch (NoSuchMethodException e) {
                    throw new IllegalStateException(e);
                }
            }
            for (Class<?> contract : current.getInterfaces()) {
                Method declared = declaringResourceMethod(contract, method);
                if (declared != null) {
                    return declared;
                }
            }
        }
        return null;
    }

    private static boolean declaresDesignator(Class<?> type, Method method) {
        try {
            Method declared = type.getDeclaredMethod(method.getName(), method.getParameterTypes());
            for (Annotation annotation : declared.getAnnotations()) {
                if (annotation.annotationType().isAnnotationPresent(HttpMethod.class)) {
                    return true;
                }
            }
            return false;
        } catch (NoSuchMethodException e) {
            return false;
        }
    }
}
