; Java definitions, after tree-sitter-java's tags.scm: types, methods and constructors, and
; `static final` fields (constants).

(class_declaration name: (identifier) @name) @definition.class
(record_declaration name: (identifier) @name) @definition.class
(interface_declaration name: (identifier) @name) @definition.interface
(annotation_type_declaration name: (identifier) @name) @definition.interface
(enum_declaration name: (identifier) @name) @definition.enum
(method_declaration name: (identifier) @name) @definition.method
(constructor_declaration name: (identifier) @name) @definition.method
(compact_constructor_declaration name: (identifier) @name) @definition.method
(annotation_type_element_declaration name: (identifier) @name) @definition.method

(field_declaration
  (modifiers) @_modifiers
  declarator: (variable_declarator name: (identifier) @name)
  (#match? @_modifiers "static")
  (#match? @_modifiers "final")) @definition.constant
