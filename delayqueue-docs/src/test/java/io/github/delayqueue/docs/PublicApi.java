package io.github.delayqueue.docs;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

import org.springframework.asm.ClassReader;
import org.springframework.asm.ClassVisitor;
import org.springframework.asm.FieldVisitor;
import org.springframework.asm.MethodVisitor;
import org.springframework.asm.Opcodes;
import org.springframework.asm.Type;

/**
 * The public API of a published module, as a sorted text a reviewer reads: every type an application can name (public,
 * or protected and nested in one it can name; none in a package named {@code internal}), with its supertypes and
 * every public or protected constructor, method and field, their types erased. Read from the module's compiled classes
 * ({@code target/classes}), never loaded, so that the modules of both Spring Boot lines are read by one build.
 */
final class PublicApi {

	/** The published modules that hold code (the starters and the BOM hold none), each with its record. */
	static final List<String> MODULES = List.of("delayqueue-embedded-redis", "delayqueue-core",
			"delayqueue-autoconfigure", "delayqueue-spring-boot4-autoconfigure", "delayqueue-spring-boot3-autoconfigure",
			"delayqueue-test-support", "delayqueue-test", "delayqueue-spring-boot3-test", "delayqueue-migration",
			"delayqueue-dashboard");

	/** Where a module keeps its record, under its own directory. */
	static final String RECORD = "api.txt";

	/** How to write the records anew after a reviewed change of the API. */
	static final String REGENERATE = "mvn -B -pl delayqueue-docs -am test -Dtest=PublicApiTests "
			+ "-Dsurefire.failIfNoSpecifiedTests=false -Ddocs.update=true";

	private PublicApi() {
	}

	/**
	 * The API of the classes under a module's {@code target/classes}.
	 * @param classes the directory of a module's compiled classes
	 * @return the record's text
	 */
	static String describe(Path classes) {
		Map<String, Described> types = new TreeMap<>();
		try (Stream<Path> files = Files.walk(classes)) {
			for (Path file : files.filter((f) -> f.toString().endsWith(".class")).toList()) {
				try (InputStream in = Files.newInputStream(file)) {
					Described type = new Described();
					new ClassReader(in).accept(type, ClassReader.SKIP_CODE | ClassReader.SKIP_DEBUG);
					if (type.name != null) {
						types.put(type.name, type);
					}
				}
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		StringBuilder text = new StringBuilder();
		types.values().stream().filter((type) -> visible(type, types)).forEach((type) -> {
			text.append(type.header()).append('\n');
			type.members.stream()
				.sorted(Comparator.comparing(PublicApi::memberName).thenComparing(Comparator.naturalOrder()))
				.forEach((member) -> text.append("  ").append(member).append('\n'));
		});
		return text.toString();
	}

	// a member's name: the word before its parameters, or a field's last word (members sort by it)
	private static String memberName(String member) {
		int open = member.indexOf('(');
		String head = (open >= 0) ? member.substring(0, open) : member;
		return head.substring(head.lastIndexOf(' ') + 1);
	}

	private static boolean visible(Described type, Map<String, Described> types) {
		if (type.name.contains(".internal.") || type.synthetic || type.anonymous) {
			return false;
		}
		if ((type.access & (Opcodes.ACC_PUBLIC | Opcodes.ACC_PROTECTED)) == 0) {
			return false;
		}
		if (type.outer == null) {
			return (type.access & Opcodes.ACC_PUBLIC) != 0;
		}
		Described outer = types.get(type.outer);
		return outer != null && visible(outer, types)
				&& ((type.access & Opcodes.ACC_PUBLIC) != 0 || (outer.access & Opcodes.ACC_FINAL) == 0);
	}

	private static String modifiers(int access) {
		List<String> words = new ArrayList<>();
		if ((access & Opcodes.ACC_PUBLIC) != 0) {
			words.add("public");
		}
		if ((access & Opcodes.ACC_PROTECTED) != 0) {
			words.add("protected");
		}
		if ((access & Opcodes.ACC_ABSTRACT) != 0 && (access & Opcodes.ACC_INTERFACE) == 0) {
			words.add("abstract");
		}
		if ((access & Opcodes.ACC_STATIC) != 0) {
			words.add("static");
		}
		if ((access & Opcodes.ACC_FINAL) != 0) {
			words.add("final");
		}
		return String.join(" ", words);
	}

	/** One class file, as far as its API goes. */
	private static final class Described extends ClassVisitor {

		private String name;

		private String simpleName;

		private String outer;

		private int access;

		private boolean synthetic;

		private boolean anonymous;

		private String superName;

		private List<String> interfaces = List.of();

		private final List<String> members = new ArrayList<>();

		Described() {
			super(Opcodes.ASM9);
		}

		@Override
		public void visit(int version, int access, String name, String signature, String superName,
				String[] interfaces) {
			this.name = name.replace('/', '.');
			this.simpleName = this.name.substring(this.name.lastIndexOf('.') + 1);
			this.access = access;
			this.synthetic = (access & Opcodes.ACC_SYNTHETIC) != 0 || name.endsWith("package-info")
					|| name.endsWith("module-info");
			this.superName = (superName != null) ? superName.replace('/', '.') : null;
			this.interfaces = Stream.of(interfaces).map((i) -> i.replace('/', '.')).toList();
		}

		@Override
		public void visitInnerClass(String name, String outerName, String innerName, int access) {
			// a nested type's own access (its class file says public for a protected one) and its enclosing type
			if (name.replace('/', '.').equals(this.name)) {
				this.access = access | (this.access & (Opcodes.ACC_INTERFACE | Opcodes.ACC_ANNOTATION
						| Opcodes.ACC_ENUM));
				this.anonymous = innerName == null;
				this.outer = (outerName != null) ? outerName.replace('/', '.') : null;
				if (innerName != null) {
					this.simpleName = innerName;
				}
			}
		}

		@Override
		public void visitOuterClass(String owner, String name, String descriptor) {
			// a local or anonymous class
			this.anonymous = true;
		}

		@Override
		public FieldVisitor visitField(int access, String name, String descriptor, String signature, Object value) {
			if (shown(access)) {
				this.members.add(modifiers(access) + " " + Type.getType(descriptor).getClassName() + " " + name);
			}
			return null;
		}

		@Override
		public MethodVisitor visitMethod(int access, String name, String descriptor, String signature,
				String[] exceptions) {
			if (shown(access) && (access & Opcodes.ACC_BRIDGE) == 0 && !name.equals("<clinit>")) {
				StringBuilder member = new StringBuilder(modifiers(access & ~Opcodes.ACC_ABSTRACT
						| (((this.access & Opcodes.ACC_INTERFACE) == 0) ? (access & Opcodes.ACC_ABSTRACT) : 0)));
				if ((this.access & Opcodes.ACC_INTERFACE) != 0 && (access & (Opcodes.ACC_ABSTRACT
						| Opcodes.ACC_STATIC)) == 0) {
					member.append(" default");
				}
				member.append(' ');
				if (name.equals("<init>")) {
					member.append(this.simpleName);
				}
				else {
					member.append(Type.getReturnType(descriptor).getClassName()).append(' ').append(name);
				}
				member.append('(');
				Type[] parameters = Type.getArgumentTypes(descriptor);
				for (int i = 0; i < parameters.length; i++) {
					member.append((i > 0) ? ", " : "").append(parameters[i].getClassName());
				}
				member.append(')');
				if (exceptions != null && exceptions.length > 0) {
					member.append(" throws ")
						.append(String.join(", ", Stream.of(exceptions).map((e) -> e.replace('/', '.')).toList()));
				}
				this.members.add(member.toString());
			}
			return null;
		}

		private boolean shown(int access) {
			if ((access & Opcodes.ACC_SYNTHETIC) != 0) {
				return false;
			}
			return (access & Opcodes.ACC_PUBLIC) != 0
					|| ((access & Opcodes.ACC_PROTECTED) != 0 && (this.access & Opcodes.ACC_FINAL) == 0);
		}

		String header() {
			String kind;
			if ((this.access & Opcodes.ACC_ANNOTATION) != 0) {
				kind = "@interface";
			}
			else if ((this.access & Opcodes.ACC_INTERFACE) != 0) {
				kind = "interface";
			}
			else if ((this.access & Opcodes.ACC_ENUM) != 0) {
				kind = "enum";
			}
			else if ("java.lang.Record".equals(this.superName)) {
				kind = "record";
			}
			else {
				kind = "class";
			}
			int shown = this.access;
			if (!kind.equals("class")) {
				// implied by the kind
				shown &= ~(Opcodes.ACC_ABSTRACT | Opcodes.ACC_FINAL);
			}
			StringBuilder header = new StringBuilder(modifiers(shown)).append(' ').append(kind).append(' ')
				.append(this.name);
			if (kind.equals("class") && this.superName != null && !this.superName.equals("java.lang.Object")) {
				header.append(" extends ").append(this.superName);
			}
			List<String> supertypes = this.interfaces.stream()
				.filter((i) -> !i.equals("java.lang.annotation.Annotation"))
				.toList();
			if (!supertypes.isEmpty()) {
				header.append(kind.equals("interface") || kind.equals("@interface") ? " extends " : " implements ")
					.append(String.join(", ", supertypes));
			}
			return header.toString();
		}

	}

}
