; C++ definitions: C's (functions with a body, structs, unions, enums, typedefs, macros,
; variables at namespace level) and classes, namespaces, `using` aliases, methods defined in
; their class, and methods defined outside it (`void Buffer::push() {}`: the class is the
; receiver). Declarations without a body (prototypes) are left out, as ctags does.

(function_definition
  declarator: (function_declarator
    declarator: [(identifier) (field_identifier) (destructor_name) (operator_name)] @name)) @definition.function
(function_definition
  declarator: (pointer_declarator
    declarator: (function_declarator
      declarator: [(identifier) (field_identifier) (operator_name)] @name))) @definition.function
(function_definition
  declarator: (reference_declarator
    (function_declarator
      declarator: [(identifier) (field_identifier) (operator_name)] @name))) @definition.function
(function_definition
  declarator: (pointer_declarator
    declarator: (pointer_declarator
      declarator: (function_declarator
        declarator: [(identifier) (field_identifier) (operator_name)] @name)))) @definition.function
(function_definition
  declarator: (function_declarator
    declarator: (qualified_identifier
      scope: (_) @receiver
      name: [(identifier) (destructor_name) (operator_name)] @name))) @definition.method
(function_definition
  declarator: (pointer_declarator
    declarator: (function_declarator
      declarator: (qualified_identifier
        scope: (_) @receiver
        name: [(identifier) (operator_name)] @name)))) @definition.method
(function_definition
  declarator: (reference_declarator
    (function_declarator
      declarator: (qualified_identifier
        scope: (_) @receiver
        name: [(identifier) (operator_name)] @name)))) @definition.method
(function_definition
  declarator: (function_declarator
    declarator: (qualified_identifier
      name: (qualified_identifier
        scope: (_) @receiver
        name: [(identifier) (destructor_name) (operator_name)] @name)))) @definition.method

(class_specifier name: (type_identifier) @name body: (_)) @definition.class
(class_specifier name: (template_type name: (type_identifier) @name) body: (_)) @definition.class
(struct_specifier name: (type_identifier) @name body: (_)) @definition.struct
(struct_specifier name: (template_type name: (type_identifier) @name) body: (_)) @definition.struct
(union_specifier name: (type_identifier) @name body: (_)) @definition.struct
(enum_specifier name: (type_identifier) @name body: (_)) @definition.enum
(namespace_definition name: (namespace_identifier) @name) @definition.module
(namespace_definition name: (nested_namespace_specifier) @name) @definition.module

(type_definition declarator: (type_identifier) @name) @definition.type
(type_definition declarator: (pointer_declarator declarator: (type_identifier) @name)) @definition.type
(alias_declaration name: (type_identifier) @name) @definition.type

(preproc_def name: (identifier) @name) @definition.macro
(preproc_function_def name: (identifier) @name) @definition.macro

; Variables: declarations, not `extern` ones. Only those at file level are symbols: the
; description's `variable_parents` names the nodes a declaration must sit in (the file, a
; namespace, a preprocessor conditional) and drops any inside a function.
((declaration
  declarator: [
    (identifier) @name
    (init_declarator declarator: (identifier) @name)
    (init_declarator declarator: (pointer_declarator declarator: (identifier) @name))
    (init_declarator declarator: (array_declarator declarator: (identifier) @name))
    (init_declarator declarator: (pointer_declarator declarator: (array_declarator declarator: (identifier) @name)))
    (array_declarator declarator: (identifier) @name)
    (pointer_declarator declarator: (identifier) @name)
  ]) @definition.variable
  (#not-match? @definition.variable "^extern[ \t]"))
