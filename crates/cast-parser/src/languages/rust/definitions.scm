; Rust definitions, after tree-sitter-rust's tags.scm. A function inside an impl, trait or
; other type is reported as a method; nesting gives `Type::method`.

(function_item name: (identifier) @name) @definition.function
(function_signature_item name: (identifier) @name) @definition.function

(struct_item name: (type_identifier) @name) @definition.struct
(union_item name: (type_identifier) @name) @definition.struct
(enum_item name: (type_identifier) @name) @definition.enum
(trait_item name: (type_identifier) @name) @definition.trait
(impl_item type: (_) @name) @definition.impl

(type_item name: (type_identifier) @name) @definition.type
(associated_type name: (type_identifier) @name) @definition.type

(mod_item name: (identifier) @name) @definition.module

(const_item name: (identifier) @name) @definition.constant
(static_item name: (identifier) @name) @definition.variable

(macro_definition name: (identifier) @name "{"? @body) @definition.macro
