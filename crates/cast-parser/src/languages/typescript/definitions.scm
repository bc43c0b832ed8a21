
; TypeScript's own definitions, read after the JavaScript ones.
(function_signature name: (identifier) @name) @definition.function
(method_signature name: (_) @name) @definition.method
(abstract_method_signature name: (_) @name) @definition.method
(abstract_class_declaration name: (type_identifier) @name) @definition.class
(interface_declaration name: (type_identifier) @name) @definition.interface
(type_alias_declaration name: (type_identifier) @name) @definition.type
(enum_declaration name: (identifier) @name) @definition.enum
(module name: (_) @name) @definition.module
(internal_module name: (_) @name) @definition.module
(public_field_definition
  name: (property_identifier) @name
  value: [
    (arrow_function) @function
    (function_expression) @function
  ]) @definition.method
