; C# definitions, after tree-sitter-c-sharp's tags.scm: namespaces, types (classes, records,
; structs, interfaces, enums, delegates), methods, constructors, destructors, operators and
; `const` fields. Properties, fields and events are members, left out as ctags's defaults
; for fields are.

(namespace_declaration name: (_) @name) @definition.module
(file_scoped_namespace_declaration name: (_) @name) @definition.module

(class_declaration name: (identifier) @name) @definition.class
(record_declaration name: (identifier) @name) @definition.class
(struct_declaration name: (identifier) @name) @definition.struct
(interface_declaration name: (identifier) @name) @definition.interface
(enum_declaration name: (identifier) @name) @definition.enum
(delegate_declaration name: (identifier) @name) @definition.type

(method_declaration name: (identifier) @name) @definition.method
(constructor_declaration name: (identifier) @name) @definition.method
(destructor_declaration name: (identifier) @name) @definition.method
; A statement the grammar misreads as a local function (`else if (x)` after an `#if` it could not
; follow) is named by a keyword: not a definition.
((local_function_statement name: (identifier) @name) @definition.function
  (#not-any-of? @name "if" "while" "for" "foreach" "switch" "using" "lock" "catch" "fixed" "return"))

(field_declaration
  (modifier) @_const
  (variable_declaration (variable_declarator name: (identifier) @name))
  (#eq? @_const "const")) @definition.constant
