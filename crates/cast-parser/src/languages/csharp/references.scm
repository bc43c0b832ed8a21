; C# calls (plain, generic, through a member or `this`/`base`), `new T()`, base types, and
; types named in declarations.

(invocation_expression function: (identifier) @name) @reference.call
(invocation_expression function: (generic_name (identifier) @name)) @reference.call
(invocation_expression
  function: (member_access_expression expression: _ @receiver name: (identifier) @name)) @reference.call
(invocation_expression
  function: (member_access_expression
    expression: _ @receiver
    name: (generic_name (identifier) @name))) @reference.call
(object_creation_expression type: (identifier) @name) @reference.call
(object_creation_expression type: (generic_name (identifier) @name)) @reference.call
(object_creation_expression
  type: (qualified_name qualifier: (_) @receiver name: (identifier) @name)) @reference.call

(base_list (identifier) @name) @reference.inherit
(base_list (generic_name (identifier) @name)) @reference.inherit
(base_list (qualified_name qualifier: (_) @receiver name: (identifier) @name)) @reference.inherit

(parameter type: (identifier) @name) @reference.type
(variable_declaration type: (identifier) @name) @reference.type
(method_declaration returns: (identifier) @name) @reference.type
(property_declaration type: (identifier) @name) @reference.type
(type_argument_list (identifier) @name) @reference.type
(generic_name (identifier) @name) @reference.type
