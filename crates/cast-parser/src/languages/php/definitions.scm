; PHP definitions, after tree-sitter-php's tags.scm: classes, interfaces, traits, enums,
; functions, methods, and constants (`const X = 1;` in a file or a class).

(class_declaration name: (name) @name) @definition.class
(interface_declaration name: (name) @name) @definition.interface
(trait_declaration name: (name) @name) @definition.trait
(enum_declaration name: (name) @name) @definition.enum
(function_definition name: (name) @name) @definition.function
(method_declaration name: (name) @name) @definition.method
(const_declaration (const_element (name) @name)) @definition.constant
