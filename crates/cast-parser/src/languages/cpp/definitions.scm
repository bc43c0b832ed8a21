; C++ definitions: functions with a body, classes, namespaces, `using` aliases, methods
; defined in their class, and methods defined outside it (`void Buffer::push() {}`: the class
; is the receiver); C's `declarations.scm` adds structs, unions, enums, typedefs, macros and
; variables at namespace level. Declarations without a body (prototypes) are left out, as
; ctags does. A node's shapes are alternatives of one pattern, not patterns of their own: each
; pattern over `function_definition` cost 20-30 ms of compiling with C++'s grammar.

(function_definition
  declarator: [
    (function_declarator
      declarator: [(identifier) (field_identifier) (destructor_name) (operator_name)] @name)
    (pointer_declarator
      declarator: (function_declarator
        declarator: [(identifier) (field_identifier) (operator_name)] @name))
    (reference_declarator
      (function_declarator
        declarator: [(identifier) (field_identifier) (operator_name)] @name))
    (pointer_declarator
      declarator: (pointer_declarator
        declarator: (function_declarator
          declarator: [(identifier) (field_identifier) (operator_name)] @name)))
  ]) @definition.function
(function_definition
  declarator: [
    (function_declarator
      declarator: (qualified_identifier
        scope: (_) @receiver
        name: [(identifier) (destructor_name) (operator_name)] @name))
    (pointer_declarator
      declarator: (function_declarator
        declarator: (qualified_identifier
          scope: (_) @receiver
          name: [(identifier) (operator_name)] @name)))
    (reference_declarator
      (function_declarator
        declarator: (qualified_identifier
          scope: (_) @receiver
          name: [(identifier) (operator_name)] @name)))
    (function_declarator
      declarator: (qualified_identifier
        name: (qualified_identifier
          scope: (_) @receiver
          name: [(identifier) (destructor_name) (operator_name)] @name)))
  ]) @definition.method

(class_specifier name: (type_identifier) @name body: (_)) @definition.class
(class_specifier name: (template_type name: (type_identifier) @name) body: (_)) @definition.class
(struct_specifier name: (template_type name: (type_identifier) @name) body: (_)) @definition.struct
(namespace_definition name: (namespace_identifier) @name) @definition.module
(namespace_definition name: (nested_namespace_specifier) @name) @definition.module

(alias_declaration name: (type_identifier) @name) @definition.type
