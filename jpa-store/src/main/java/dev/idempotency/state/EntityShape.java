package dev.idempotency.state;

import java.lang.reflect.AccessibleObject;
import java.lang.reflect.AnnotatedElement;
import java.lang.reflect.Field;
import java.lang.reflect.Member;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import jakarta.persistence.Column;
import jakarta.persistence.EntityManager;
import jakarta.persistence.SecondaryTable;
import jakarta.persistence.metamodel.Attribute;
import jakarta.persistence.metamodel.EntityType;
import jakarta.persistence.metamodel.SingularAttribute;

/**
 * What the guard needs of an entity class, found once in the JPA metamodel: its JPQL name, its
 * id, its numeric {@code @Version} and its state attribute; the statements built from them; and
 * how an instance's version is read (its field or getter), to tell whether the flush before the
 * guard's read wrote the row last.
 *
 * @param name the entity name (JPQL)
 * @param read selects the state and the version by id
 * @param write sets the state and the next version, if both are still what was read
 * @param unversioned counts the row by id if its version is NULL (read as 0 into a primitive
 *     version, so no update matching the version read can match it)
 * @param version the version attribute's field or getter, made accessible; null where it cannot be
 */
record EntityShape(String name, String read, String write, String unversioned, Member version) {

    private static final Set<Class<?>> NUMERIC_VERSIONS = Set.of(int.class, Integer.class, long.class, Long.class,
            short.class, Short.class);

    /**
     * @throws IllegalArgumentException naming the entity and everything it lacks
     */
    static EntityShape of(EntityManager em, Class<?> instanceClass, String attribute, Class<? extends Enum<?>> states) {
        EntityType<?> type = entityType(em, instanceClass);
        List<String> problems = new ArrayList<>();
        String id = null;
        SingularAttribute<?, ?> version = null;
        for (SingularAttribute<?, ?> candidate : type.getSingularAttributes()) {
            if (candidate.isId() && type.hasSingleIdAttribute()) {
                id = candidate.getName(); // by flag: getId(Class) is strict about long versus Long
            }
            if (candidate.isVersion()) {
                version = candidate;
            }
        }
        if (id == null) {
            problems.add("a single @Id attribute (not an @IdClass)");
        }
        if (version == null) {
            problems.add("a numeric @Version attribute, which guards every write");
        } else if (!NUMERIC_VERSIONS.contains(version.getJavaType())) {
            problems.add("a numeric @Version (" + version.getName() + " is a " + version.getJavaType().getName() + ")");
        }
        Attribute<?, ?> state = type.getAttributes().stream().filter(a -> a.getName().equals(attribute)).findFirst().orElse(null);
        if (state == null) {
            problems.add("the state attribute '" + attribute + "' (name it with StateMachine.Builder.attribute)");
        } else if (state.getJavaType() != states) {
            problems.add("'" + attribute + "' of type " + states.getName() + " (it is a " + state.getJavaType().getName() + ")");
        } else if (secondaryTableOf(state, type.getJavaType()) != null) {
            // Hibernate reads a secondary table with an outer join, which PostgreSQL does not lock: it
            // then locks "after the query", a projection never, and two transactions both moved it.
            problems.add("'" + attribute + "' in the entity's own table, beside its @Version (it is in the secondary table "
                    + secondaryTableOf(state, type.getJavaType()) + ", whose row a provider may read without the lock)");
        }
        if (!problems.isEmpty()) {
            throw new IllegalArgumentException(
                    StateMessages.entityLacks(type.getName(), type.getJavaType().getName(), problems));
        }
        String name = type.getName();
        String versionName = version.getName();
        return new EntityShape(name,
                "SELECT e." + attribute + ", e." + versionName + " FROM " + name + " e WHERE e." + id + " = :id",
                "UPDATE " + name + " e SET e." + attribute + " = :to, e." + versionName + " = e." + versionName + " + 1"
                        + " WHERE e." + id + " = :id AND e." + attribute + " = :from AND e." + versionName + " = :version",
                "SELECT COUNT(e) FROM " + name + " e WHERE e." + id + " = :id AND e." + versionName + " IS NULL",
                accessible(version.getJavaMember()));
    }

    /**
     * @return the version an instance holds in memory, or null where it cannot be read (a member
     *     that cannot be made accessible; a boxed version on a provider's proxy, whose own fields
     *     are empty; a primitive one there reads 0, which no row the flush wrote holds)
     */
    Number heldVersion(Object instance) {
        if (version == null) {
            return null;
        }
        try {
            return (Number) (version instanceof Field field ? field.get(instance) : ((Method) version).invoke(instance));
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }

    /** @return the field or getter, accessible; null when it is neither or cannot be made so */
    private static Member accessible(Member member) {
        if (!(member instanceof Field) && !(member instanceof Method getter && getter.getParameterCount() == 0)) {
            return null;
        }
        try {
            ((AccessibleObject) member).setAccessible(true);
            return member;
        } catch (RuntimeException e) { // a module that does not open the entity's package
            return null;
        }
    }

    /**
     * @param attribute the state attribute
     * @param entity the entity class whose instance is moved
     * @return the secondary table (declared with {@code @SecondaryTable} on the entity or a class
     *     above it) that the attribute's column names on its field or getter, or null. A mapping in
     *     orm.xml is not seen.
     */
    private static String secondaryTableOf(Attribute<?, ?> attribute, Class<?> entity) {
        Member member = attribute.getJavaMember();
        Column column = member instanceof AnnotatedElement annotated ? annotated.getAnnotation(Column.class) : null;
        if (column == null || column.table().isEmpty()) {
            return null;
        }
        for (Class<?> type = entity; type != null && type != Object.class; type = type.getSuperclass()) {
            for (SecondaryTable table : type.getAnnotationsByType(SecondaryTable.class)) {
                if (unquoted(table.name()).equalsIgnoreCase(unquoted(column.table()))) {
                    return column.table();
                }
            }
        }
        return null;
    }

    private static String unquoted(String name) {
        return name.replace("\"", "").replace("`", "");
    }

    /** The instance's class or, for a provider's proxy or subclass, the nearest entity above it. */
    private static EntityType<?> entityType(EntityManager em, Class<?> instanceClass) {
        for (Class<?> type = instanceClass; type != null && type != Object.class; type = type.getSuperclass()) {
            for (EntityType<?> entity : em.getMetamodel().getEntities()) {
                if (entity.getJavaType() == type) {
                    return entity;
                }
            }
        }
        throw new IllegalArgumentException(StateMessages.notAnEntity(instanceClass.getName()));
    }
}
