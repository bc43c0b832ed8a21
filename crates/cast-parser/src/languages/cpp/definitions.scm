; C++ definitions: functions with a body, classes, namespaces, `using` aliases, methods
; defined in their class, and methods defined outside it (`void Buffer::push() {}`: the class
; is the receiver); C's `declarations.scm` adds structs, unions, enums, typedefs, macros and
; variables at namespace level. Declarations without a body (prototypes) are left out, as
; ctags does. The name inside a function's declarator (`*f()`, `&A::operator=()`) is read by
; C's `declarator` (c/mod.rs): spelled out here, its shapes took 0.14 s to compile.

(function_definition declarator: (_) @declarator) @definition.function

(class_specifier name: (type_identifier) @name body: (_)) @definition.class
(class_specifier name: (template_type name: (type_identifier) @name) body: (_)) @definition.class
(struct_specifier name: (template_type name: (type_identifier) @name) body: (_)) @definition.struct
(namespace_definition name: (namespace_identifier) @name) @definition.module
(namespace_definition name: (nested_namespace_specifier) @name) @definition.module

(alias_declaration name: (type_identifier) @name) @definition.type
