; C++ calls (plain, through a member, through a scope `ns::f()`, of a template `f<T>()`),
; `new T`, base classes, and types named in declarations.

(call_expression function: (identifier) @name) @reference.call
(call_expression
  function: (field_expression argument: (_) @receiver field: (field_identifier) @name)) @reference.call
(call_expression
  function: (qualified_identifier scope: (_) @receiver name: (identifier) @name)) @reference.call
(call_expression
  function: (qualified_identifier
    name: (qualified_identifier scope: (_) @receiver name: (identifier) @name))) @reference.call
(call_expression
  function: (template_function name: (identifier) @name)) @reference.call
(call_expression
  function: (qualified_identifier
    scope: (_) @receiver
    name: (template_function name: (identifier) @name))) @reference.call
(new_expression type: (type_identifier) @name) @reference.call
(new_expression type: (template_type name: (type_identifier) @name)) @reference.call

(base_class_clause (type_identifier) @name) @reference.inherit
(base_class_clause (template_type name: (type_identifier) @name)) @reference.inherit
(base_class_clause
  (qualified_identifier scope: (_) @receiver name: (type_identifier) @name)) @reference.inherit

(qualified_identifier scope: (namespace_identifier) @receiver name: (type_identifier) @name) @reference.type
(type_identifier) @name @reference.type
